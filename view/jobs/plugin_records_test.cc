#include "view/jobs/plugin_records.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "view/jobs/validate.h"

namespace protond::view {
namespace {

v1::CollectiveEvent Call(const std::string& op, const std::string& datatype, uint64_t count,
                         uint32_t nranks) {
  v1::CollectiveEvent event;
  event.set_process_id(3);
  event.set_pid(4242);
  event.set_rank(1);
  event.set_nranks(nranks);
  event.set_comm_hash(0xabcdef0123456789);
  event.set_seq(41);
  event.set_count(count);
  event.set_op(op);
  event.set_datatype(datatype);
  event.set_algorithm("RING");
  event.set_protocol("LL128");
  event.set_start_ns(1'000);
  event.set_end_ns(2'500);
  event.set_scope_path("train/step");
  return event;
}

TEST(PluginRecordsTest, BytesAreCountedAsNcclTestsCountsThemForEachOp) {
  // 1024 f32 on each of 4 ranks: the gathers and scatters count the whole array.
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclFloat32", 1024, 4), 4096u);
  EXPECT_EQ(NcclCallBytes("AllGather", "ncclFloat32", 1024, 4), 16384u);
  EXPECT_EQ(NcclCallBytes("ReduceScatter", "ncclFloat32", 1024, 4), 16384u);
  EXPECT_EQ(NcclCallBytes("Broadcast", "ncclFloat32", 1024, 4), 4096u);
  EXPECT_EQ(NcclCallBytes("Reduce", "ncclFloat32", 1024, 4), 4096u);
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclBfloat16", 1024, 4), 2048u);
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclInt8", 1024, 4), 1024u);
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclFloat64", 1024, 4), 8192u);
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclFloat128", 1024, 4), 0u);  // size unknown
}

TEST(PluginRecordsTest, BytesThatDoNotFitSaturateAndAreRefused) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(NcclCallBytes("AllReduce", "ncclFloat32", max / 2, 2), max);
  EXPECT_EQ(NcclCallBytes("AllGather", "ncclInt8", max / 2, 3), max);
}

TEST(PluginRecordsTest, DatatypesTakeTheViewsSpellingAndUnknownOnesStayAsGiven) {
  EXPECT_EQ(NcclDatatypeName("ncclFloat32"), "f32");
  EXPECT_EQ(NcclDatatypeName("ncclFloat"), "f32");
  EXPECT_EQ(NcclDatatypeName("ncclBfloat16"), "bf16");
  EXPECT_EQ(NcclDatatypeName("ncclFloat16"), "f16");
  EXPECT_EQ(NcclDatatypeName("ncclHalf"), "f16");
  EXPECT_EQ(NcclDatatypeName("ncclInt32"), "i32");
  EXPECT_EQ(NcclDatatypeName("ncclUint64"), "u64");
  EXPECT_EQ(NcclDatatypeName("ncclFloat8e4m3"), "f8e4m3");
  EXPECT_EQ(NcclDatatypeName("ncclFloat128"), "ncclFloat128");
  EXPECT_EQ(NcclDatatypeName(""), "");
}

TEST(PluginRecordsTest, ARecordHasThePluginsCallAndTheSessionsHostAndPid) {
  v1::Collectives collectives;
  *collectives.add_events() = Call("ReduceScatter", "ncclBfloat16", 512, 2);
  v1::Session session;
  session.set_id(7);
  const PluginSession plugin{&session, &collectives, "node02"};

  const std::vector<CollectiveRecordUntrusted> records = CollectivesFromPlugin({&plugin, 1}, "981");

  ASSERT_EQ(records.size(), 1u);
  const CollectiveRecordUntrusted& r = records[0];
  EXPECT_EQ(r.job, "981");
  EXPECT_EQ(r.host, "node02");
  EXPECT_EQ(r.pid, 4242);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.comm_id, 0xabcdef0123456789u);
  EXPECT_EQ(r.seq, 41u);
  EXPECT_EQ(r.op, "reduce_scatter");
  EXPECT_EQ(r.bytes, 2048u);
  EXPECT_EQ(r.datatype, "bf16");
  EXPECT_EQ(r.algorithm, "RING");
  EXPECT_EQ(r.protocol, "LL128");
  EXPECT_EQ(r.start_ns, 1'000);
  EXPECT_EQ(r.end_ns, 2'500);
  EXPECT_EQ(r.scope_path, "train/step");
  EXPECT_FALSE(r.gpu.has_value());  // no kernel known
}

TEST(PluginRecordsTest, ACallWithItsKernelHasTheKernelsGpuTimes) {
  v1::Collectives collectives;
  *collectives.add_events() = Call("AllReduce", "ncclFloat32", 4, 2);
  v1::CollectiveKernel* kernel = collectives.mutable_events(0)->mutable_kernel();
  kernel->set_start_ns(1'700);
  kernel->set_end_ns(9'000);
  v1::Session session;
  const PluginSession plugin{&session, &collectives, ""};

  const std::vector<CollectiveRecordUntrusted> records = CollectivesFromPlugin({&plugin, 1}, "");

  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].start_ns, 1'000);
  EXPECT_EQ(records[0].gpu, (TimeSpanNs{1'700, 9'000}));
}

// Every field is the plugin's word: the converter passes hostile values on, and validation
// refuses them with the value that was wrong.
TEST(PluginRecordsTest, Malicious_HostileCallsReachValidationAndAreRefusedThere) {
  v1::Collectives collectives;
  *collectives.add_events() = Call("AllReduce\x1b[2J", "ncclFloat32", 1, 2);  // unknown_op
  *collectives.add_events() = Call("AllReduce", "ncclFloat32", 1, 2);
  collectives.mutable_events(1)->set_rank(9);  // rank_out_of_range
  *collectives.add_events() = Call("AllReduce", "ncclFloat32", 1, 2);
  collectives.mutable_events(2)->set_start_ns(uint64_t{1} << 63);  // bad_times
  *collectives.add_events() = Call("AllReduce", "ncclFloat32", uint64_t{1} << 60, 2);
  *collectives.add_events() = Call("AllReduce", std::string(300, 'x'), 1, 2);  // bad_text
  *collectives.add_events() = Call("AllReduce", "ncclFloat32", 1, 0);          // bad_nranks
  v1::Session session;
  const PluginSession plugin{&session, &collectives, ""};

  const ValidatedCollectives valid =
      ValidateCollectives(CollectivesFromPlugin({&plugin, 1}, ""), "");

  EXPECT_TRUE(valid.records.empty());
  ASSERT_EQ(valid.stats.messages.size(), 6u);
  EXPECT_NE(valid.stats.messages[0].find("unknown_op"), std::string::npos);
  EXPECT_NE(valid.stats.messages[1].find("rank_out_of_range"), std::string::npos);
  EXPECT_NE(valid.stats.messages[2].find("bad_times"), std::string::npos);
  EXPECT_NE(valid.stats.messages[3].find("absurd_bytes"), std::string::npos);
  EXPECT_NE(valid.stats.messages[4].find("bad_text"), std::string::npos);
  EXPECT_NE(valid.stats.messages[5].find("bad_nranks"), std::string::npos);
}

}  // namespace
}  // namespace protond::view
