#include "shim/nccl/collective_plugin.h"

#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/record/record_decoder.h"
#include "daemon/ingest/ring_reader.h"
#include "gtest/gtest.h"

namespace protond::shim {
namespace {

constexpr uint64_t kCommHash = 0x5eed0000cafe;
constexpr int kGroupEvent = 1 << 0;  // NCCL's ncclProfileGroup: not asked for, never recorded

Recorder* g_recorder = nullptr;
Recorder* TestRecorder() { return g_recorder; }

// The tracer's view of the calling thread: its latest kernel launch, 0 for none.
thread_local uint32_t t_test_last_launch = 0;
bool TestLastLaunch(uint32_t* correlation_id) {
  *correlation_id = t_test_last_launch;
  return t_test_last_launch != 0;
}

// A recorder over a region of its own, which the plugin finds; thread state is per thread and
// bound to one region, so each case calls NCCL's side from a fresh thread.
class CollectivePluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = ring::WritableRegion::Create({4, 1u << 16});
    ASSERT_TRUE(created.ok()) << created.status();
    region_.emplace(std::move(*created));
    recorder_.emplace(&*region_, getpid(), ScopeClock::kMonotonic);
    g_recorder = &*recorder_;
    SetCollectiveRecorder(&TestRecorder, &TestLastLaunch);
    ASSERT_EQ(plugin_->init(&communicator_, kCommHash, &mask_, "world", 1, 2, 1, nullptr),
              PROTOND_NCCL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(plugin_->finalize(communicator_), PROTOND_NCCL_SUCCESS);
    SetCollectiveRecorder(nullptr);
    g_recorder = nullptr;
  }

  // One collective call as NCCL makes it: start, then stop.
  void Call(const char* func, size_t count, const char* datatype = "ncclFloat32",
            const char* algorithm = "RING", const char* protocol = "LL") {
    protond_nccl_event_v5 descr{};
    descr.type = PROTOND_NCCL_PROFILE_COLL;
    descr.rank = 1;
    descr.u.coll.func = func;
    descr.u.coll.count = count;
    descr.u.coll.datatype = datatype;
    descr.u.coll.algorithm = algorithm;
    descr.u.coll.protocol = protocol;
    void* event = nullptr;
    ASSERT_EQ(plugin_->start_event(communicator_, &event, &descr), PROTOND_NCCL_SUCCESS);
    ASSERT_EQ(plugin_->stop_event(event), PROTOND_NCCL_SUCCESS);
  }

  std::vector<record::CollectiveRecord> Collectives() {
    auto reader = ring::RegionReader::Attach(dup(region_->fd()), region_->bytes());
    EXPECT_TRUE(reader.ok()) << reader.status();
    std::vector<record::CollectiveRecord> collectives;
    // Each case records on one thread, in one session: lane 0.
    EXPECT_TRUE(reader->CopyLane(0, 0, bytes_).ok());
    std::span<const uint8_t> rest(bytes_);
    while (!rest.empty()) {
      auto r = record::DecodeRecord(rest);
      EXPECT_TRUE(r.ok()) << r.status();
      if (!r.ok()) break;
      if (r->kind == record::Kind::kCollective) collectives.push_back(r->collective);
      rest = rest.subspan(r->size_bytes);
    }
    return collectives;
  }

  const protond_nccl_profiler_v5* plugin_ = CollectivePluginV5();
  std::optional<ring::WritableRegion> region_;
  std::optional<Recorder> recorder_;
  void* communicator_ = nullptr;
  int mask_ = 0;
  std::vector<uint8_t> bytes_;
};

TEST_F(CollectivePluginTest, AsksNcclForCollectivesOnly) {
  EXPECT_EQ(mask_, PROTOND_NCCL_PROFILE_COLL);
  EXPECT_STREQ(plugin_->name, "protond");
}

TEST_F(CollectivePluginTest, RecordsEachCallWithItsCommunicatorNumberAndScope) {
  recorder_->StartRecording(7);
  std::thread([&] {
    ASSERT_EQ(recorder_->EnterScope("step"), PROTOND_OK);
    Call("AllReduce", 1024);
    Call("Broadcast", 8, "ncclBfloat16", "TREE", "SIMPLE");
    ASSERT_EQ(recorder_->ExitScope("step"), PROTOND_OK);
  }).join();
  const auto collectives = Collectives();
  ASSERT_EQ(collectives.size(), 2u);
  const record::CollectiveRecord& first = collectives[0];
  EXPECT_EQ(first.comm_hash, kCommHash);
  EXPECT_EQ(first.seq, 0u);
  EXPECT_EQ(first.rank, 1u);
  EXPECT_EQ(first.nranks, 2u);
  EXPECT_EQ(first.count, 1024u);
  EXPECT_STREQ(first.op, "AllReduce");
  EXPECT_STREQ(first.datatype, "ncclFloat32");
  EXPECT_STREQ(first.algorithm, "RING");
  EXPECT_STREQ(first.protocol, "LL");
  EXPECT_NE(first.header.aux, record::kRootContextId);  // under "step"
  EXPECT_GT(first.start, 0u);
  EXPECT_GE(first.end, first.start);
  // One number per communicator over all its functions: the broadcast is call 1, not 0.
  EXPECT_EQ(collectives[1].seq, 1u);
  EXPECT_STREQ(collectives[1].op, "Broadcast");
  EXPECT_STREQ(collectives[1].datatype, "ncclBfloat16");
  EXPECT_EQ(collectives[1].header.aux, first.header.aux);
}

// NCCL starts a call's event right after launching its kernel on the same thread: that launch's
// correlation id goes into the record, and a thread that launched nothing gives none.
TEST_F(CollectivePluginTest, EachCallCarriesTheKernelLaunchedBeforeItStarted) {
  recorder_->StartRecording(7);
  std::thread([&] {
    Call("AllReduce", 1);  // no launch yet on this thread
    t_test_last_launch = 41;
    Call("AllReduce", 1);
    t_test_last_launch = 57;
    Call("AllGather", 1);
  }).join();
  const auto collectives = Collectives();
  ASSERT_EQ(collectives.size(), 3u);
  EXPECT_EQ(collectives[0].collective_flags, 0u);
  EXPECT_EQ(collectives[0].launch_correlation_id, 0u);
  EXPECT_EQ(collectives[1].collective_flags, record::kCollectiveLaunchKnown);
  EXPECT_EQ(collectives[1].launch_correlation_id, 41u);
  EXPECT_EQ(collectives[2].launch_correlation_id, 57u);
}

TEST_F(CollectivePluginTest, CallsWithoutASessionAreCountedNotRecorded) {
  std::thread([&] {
    Call("AllReduce", 1);
    Call("AllReduce", 1);
    recorder_->StartRecording(7);
    Call("AllGather", 4);
  }).join();
  const auto collectives = Collectives();
  ASSERT_EQ(collectives.size(), 1u);
  EXPECT_EQ(collectives[0].seq, 2u);  // the same number the other ranks give this call
}

TEST_F(CollectivePluginTest, OtherEventsAreNeitherRecordedNorCounted) {
  recorder_->StartRecording(7);
  std::thread([&] {
    protond_nccl_event_v5 group{};
    group.type = kGroupEvent;
    void* event = &group;
    ASSERT_EQ(plugin_->start_event(communicator_, &event, &group), PROTOND_NCCL_SUCCESS);
    EXPECT_EQ(event, nullptr);
    Call("AllReduce", 1);
  }).join();
  const auto collectives = Collectives();
  ASSERT_EQ(collectives.size(), 1u);
  EXPECT_EQ(collectives[0].seq, 0u);
}

TEST_F(CollectivePluginTest, ACallThatEndsAfterItsSessionStoppedIsNotWritten) {
  recorder_->StartRecording(7);
  std::thread([&] {
    protond_nccl_event_v5 descr{};
    descr.type = PROTOND_NCCL_PROFILE_COLL;
    descr.u.coll.func = "AllReduce";
    void* event = nullptr;
    ASSERT_EQ(plugin_->start_event(communicator_, &event, &descr), PROTOND_NCCL_SUCCESS);
    ASSERT_NE(event, nullptr);
    recorder_->StopRecording(7);
    ASSERT_EQ(plugin_->stop_event(event), PROTOND_NCCL_SUCCESS);
  }).join();
  EXPECT_TRUE(Collectives().empty());
}

TEST_F(CollectivePluginTest, MissingOrLongTextsAreEmptyOrCut) {
  recorder_->StartRecording(7);
  std::thread([&] { Call(nullptr, 1, nullptr, "A_VERY_LONG_ALGORITHM_NAME", nullptr); }).join();
  const auto collectives = Collectives();
  ASSERT_EQ(collectives.size(), 1u);
  EXPECT_STREQ(collectives[0].op, "");
  EXPECT_STREQ(collectives[0].datatype, "");
  EXPECT_STREQ(collectives[0].algorithm, "A_VERY_LONG_ALG");
  EXPECT_STREQ(collectives[0].protocol, "");
}

TEST(CollectivePluginWithoutShimTest, NothingRecordsAndNoCallFails) {
  SetCollectiveRecorder(nullptr);
  const protond_nccl_profiler_v5* plugin = CollectivePluginV5();
  void* communicator = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin->init(&communicator, 1, &mask, nullptr, 1, 1, 0, nullptr), PROTOND_NCCL_SUCCESS);
  protond_nccl_event_v5 descr{};
  descr.type = PROTOND_NCCL_PROFILE_COLL;
  void* event = &descr;
  EXPECT_EQ(plugin->start_event(communicator, &event, &descr), PROTOND_NCCL_SUCCESS);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(plugin->stop_event(nullptr), PROTOND_NCCL_SUCCESS);
  EXPECT_EQ(plugin->record_event_state(nullptr, 0, nullptr), PROTOND_NCCL_SUCCESS);
  EXPECT_EQ(plugin->finalize(communicator), PROTOND_NCCL_SUCCESS);
}

}  // namespace
}  // namespace protond::shim
