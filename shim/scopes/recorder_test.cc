#include "shim/scopes/recorder.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <latch>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/record/instrumentation_blob.h"
#include "common/record/record_decoder.h"
#include "common/record/test_records.h"
#include "common/tree/tree_depth.h"
#include "daemon/ingest/ring_reader.h"
#include "gtest/gtest.h"

namespace protond::shim {
namespace {

using record::Kind;
using record::testing::H100;

// The cases stamp with CLOCK_MONOTONIC, whose records need no clock pairs, unless they are about
// the TSC.
constexpr ScopeClock kNs = ScopeClock::kMonotonic;

// Thread state is per thread and bound to one region, so each case records on a fresh thread.
template <typename F>
void OnNewThread(F f) {
  std::thread(f).join();
}

std::vector<record::Record> ReadLane(const ring::WritableRegion& region, uint32_t lane,
                                     std::vector<uint8_t>& bytes) {
  auto reader = ring::RegionReader::Attach(dup(region.fd()), region.bytes());
  EXPECT_TRUE(reader.ok()) << reader.status();
  EXPECT_TRUE(reader->CopyLane(lane, 0, bytes).ok());
  std::vector<record::Record> records;
  std::span<const uint8_t> rest(bytes);
  while (!rest.empty()) {
    auto r = record::DecodeRecord(rest);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) break;
    records.push_back(*r);
    rest = rest.subspan(r->size_bytes);
  }
  return records;
}

std::vector<Kind> Kinds(const std::vector<record::Record>& records) {
  std::vector<Kind> kinds;
  for (const auto& r : records) kinds.push_back(r.kind);
  return kinds;
}

TEST(RecorderTest, WritesDefinitionsOnceThenEnterExitAndMetrics) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(7);
  OnNewThread([&] {
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(recorder.EnterScope("a"), PROTOND_OK);
      EXPECT_EQ(recorder.EnterScope("b"), PROTOND_OK);
      EXPECT_EQ(recorder.AddInt64Metric("flops", 10), PROTOND_OK);
      EXPECT_EQ(recorder.ExitScope("b"), PROTOND_OK);
      EXPECT_EQ(recorder.ExitScope(nullptr), PROTOND_OK);
    }
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  const std::vector<Kind> first_pass = {Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                                        Kind::kScopeEnter,  Kind::kContextDef,   Kind::kScopeEnter,
                                        Kind::kNameDef,     Kind::kMetric,       Kind::kScopeExit,
                                        Kind::kScopeExit};
  std::vector<Kind> expected = first_pass;
  expected.insert(expected.end(), {Kind::kScopeEnter, Kind::kScopeEnter, Kind::kMetric,
                                   Kind::kScopeExit, Kind::kScopeExit});
  EXPECT_EQ(Kinds(records), expected);
  EXPECT_EQ(records[1].value, 7u);
  EXPECT_EQ(records[2].name, "a");
  EXPECT_EQ(records[4].name, "b");
  EXPECT_EQ(records[4].ref_id, records[2].aux);  // b's parent is a
  EXPECT_EQ(records[7].aux, records[4].aux);     // the metric lands on b
  EXPECT_EQ(records[6].name, "flops");
  EXPECT_LE(records[3].value, records[9].value);
}

TEST(RecorderTest, MonotonicTimestampsAreNsWithNoClockPairs) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(7);
  const uint64_t before_ns = clock::MonotonicNs();
  OnNewThread([&] {
    recorder.EnterScope("a");
    recorder.ExitScope("a");
  });
  const uint64_t after_ns = clock::MonotonicNs();
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kScopeEnter, Kind::kScopeExit}));
  EXPECT_EQ(records[3].flags, 0);
  EXPECT_GE(records[3].value, before_ns);
  EXPECT_LE(records[4].value, after_ns);
}

// With the TSC each session's records in a lane start with a clock pair, and a timestamp more than
// kClockSyncTicks after the lane's last pair gets a new one first.
TEST(RecorderTest, TscTimestampsComeAfterAClockPairOfTheirLane) {
  if (!clock::kHasTsc) GTEST_SKIP() << "no TSC on this architecture";
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), ScopeClock::kTsc);
  recorder.StartRecording(7);
  const uint64_t before_ns = clock::MonotonicNs();
  OnNewThread([&] {
    recorder.EnterScope("a");
    recorder.ExitScope("a");
    recorder.EnterState("busy");
    recorder.ExitState();
    const uint64_t wait_until = clock::ReadTsc() + record::kClockSyncTicks;
    while (clock::ReadTsc() <= wait_until) std::this_thread::yield();
    recorder.EnterScope("a");
    recorder.ExitScope("a");
  });
  const uint64_t after_ns = clock::MonotonicNs();
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kClockSync, Kind::kScopeEnter, Kind::kScopeExit,
                               Kind::kNameDef, Kind::kStateEnter, Kind::kStateExit,
                               Kind::kClockSync, Kind::kScopeEnter, Kind::kScopeExit}));
  const record::Record& pair = records[3];
  EXPECT_GE(pair.monotonic_ns, before_ns);
  EXPECT_LE(pair.monotonic_ns, after_ns);
  EXPECT_GE(pair.value, records[4].value);  // the pair is taken after the enter's timestamp
  EXPECT_LE(pair.value, records[5].value);
  for (size_t i : {4, 5, 7, 8, 10, 11}) {
    EXPECT_EQ(records[i].flags, record::kTimestampTsc) << i;
  }
  EXPECT_GT(records[9].value, pair.value + record::kClockSyncTicks);
  EXPECT_GT(records[9].monotonic_ns, pair.monotonic_ns);
}

TEST(RecorderTest, TscTimestampsOfTheLanesNextSessionGetAClockPairFirst) {
  if (!clock::kHasTsc) GTEST_SKIP() << "no TSC on this architecture";
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), ScopeClock::kTsc);
  OnNewThread([&] {
    for (uint64_t session : {7, 8}) {
      recorder.StartRecording(session);
      recorder.EnterScope("a");
      recorder.ExitScope("a");
      recorder.StopRecording(session);
      recorder.FinishStopping(session);
    }
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(
      Kinds(records),
      (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                         Kind::kClockSync, Kind::kScopeEnter, Kind::kScopeExit, Kind::kSessionBegin,
                         Kind::kClockSync, Kind::kScopeEnter, Kind::kScopeExit}));
}

// The GPU tracer writes from CUPTI's thread, about contexts that application threads entered:
// the writing thread's lane gets the definitions it needs first.
TEST(RecorderTest, GpuActivityFromAnotherThreadDefinesItsContextAndKernelName) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  uint32_t launch_context = 0;
  OnNewThread([&] {
    EXPECT_EQ(recorder.CurrentContext(), record::kRootContextId);
    recorder.EnterScope("train");
    launch_context = recorder.CurrentContext();
    recorder.ExitScope("train");
  });
  recorder.StartRecording(5);
  OnNewThread([&] {
    record::NameClass first_class;
    auto activity = record::MakeGpuActivity(Kind::kKernel, 0, launch_context);
    activity.name_id =
        recorder.names().InternName("gemm", record::NameClass::kKernel, &first_class);
    activity.start_ns = 10;
    activity.end_ns = 20;
    EXPECT_EQ(recorder.WriteGpuActivity(activity, Recorder::kUnknownRecordingSet), PROTOND_OK);
    EXPECT_EQ(recorder.WriteNotice("CUPTI is held by nsys"), PROTOND_OK);
    recorder.CountDropped(3);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kNameDef, Kind::kKernel, Kind::kNotice}));
  EXPECT_EQ(records[2].name, "train");
  EXPECT_EQ(records[3].name, "gemm");
  EXPECT_EQ(records[4].aux, launch_context);
  EXPECT_EQ(records[5].name, "CUPTI is held by nsys");
  EXPECT_EQ(ring::LaneHeaderAt(region->base(), 0)->dropped_records.load(), 3u);

  recorder.StopRecording(5);
  recorder.FinishStopping(5);
  OnNewThread([&] { EXPECT_EQ(recorder.WriteNotice("late"), PROTOND_INACTIVE); });
}

// Between StopRecording and FinishStopping (while the shim's stop queue waits for CUPTI's last
// buffers), the program's records no longer go to the session, but its GPU work still does.
TEST(RecorderTest, AStoppingSessionTakesItsGpuWorkButNothingFromTheProgram) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  ASSERT_TRUE(recorder.StartRecording(5));
  const uint32_t while_recording = recorder.RecordingSet();
  ASSERT_TRUE(recorder.StopRecording(5));
  EXPECT_FALSE(recorder.IsRecording(5));
  EXPECT_FALSE(recorder.recording());
  EXPECT_TRUE(recorder.RecordingSessions().empty());
  EXPECT_FALSE(recorder.StopRecording(5));
  EXPECT_FALSE(recorder.StartRecording(5));  // it keeps its slot until it has finished stopping
  const auto memset = record::MakeGpuActivity(Kind::kMemset, 0, record::kRootContextId);
  OnNewThread([&] {
    EXPECT_EQ(recorder.EnterScope("after"), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.AddInt64Metric("m", 1), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.WriteGpuActivity(memset, while_recording), PROTOND_OK);
    // Launched after the stop: not the session's.
    EXPECT_EQ(recorder.WriteGpuActivity(memset, recorder.RecordingSet()), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.WriteNotice("PC sampling: 3 samples lost"), PROTOND_OK);
  });
  EXPECT_TRUE(recorder.FinishStopping(5));
  EXPECT_FALSE(recorder.FinishStopping(5));
  OnNewThread([&] {
    EXPECT_EQ(recorder.WriteGpuActivity(memset, while_recording), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.WriteNotice("late"), PROTOND_INACTIVE);
  });
  std::vector<uint8_t> bytes;
  EXPECT_EQ(
      Kinds(ReadLane(*region, 0, bytes)),
      (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kMemset, Kind::kNotice}));
  EXPECT_FALSE(recorder.FinishStopping(6));  // never recorded
  ASSERT_TRUE(recorder.StartRecording(6));
  EXPECT_FALSE(recorder.FinishStopping(6));  // recording, not stopping
  EXPECT_TRUE(recorder.StartRecording(5));
}

TEST(RecorderTest, DeviceInfoGoesIntoTheCallingThreadsLaneWithItsNameCut) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(4);
  const std::string long_name(record::kMaxNameBytes + 10, 'x');
  OnNewThread([&] {
    EXPECT_EQ(recorder.WriteDeviceInfo(2, H100(), record::testing::kH100Name), PROTOND_OK);
    EXPECT_EQ(recorder.WriteDeviceInfo(3, H100(), long_name), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(Kinds(records), (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin,
                                               Kind::kDeviceInfo, Kind::kDeviceInfo}));
  EXPECT_EQ(records[1].value, 4u);
  EXPECT_EQ(records[2].aux, 2u);
  EXPECT_EQ(records[2].name, record::testing::kH100Name);
  EXPECT_EQ(records[2].device.arch, 90u);
  EXPECT_EQ(records[2].device.num_sms, 132u);
  EXPECT_EQ(records[2].device.clock_rate_khz, 1980000u);
  EXPECT_EQ(records[2].device.memory_clock_rate_khz, 2619000u);
  EXPECT_EQ(records[2].device.bus_width_bits, 5120u);
  EXPECT_EQ(records[2].device.memory_bytes, 85029158912u);
  EXPECT_EQ(records[3].aux, 3u);
  EXPECT_EQ(records[3].name, long_name.substr(0, record::kMaxNameBytes));
}

// Issue 27: the enter cut a long name to kMaxNameBytes and the exit compared it uncut, so the
// scope never closed and every later scope nested under it, with nothing said.
TEST(RecorderTest, AScopeNameOverTheLimitIsCutAlikeAtEnterAndExitAndSaysSo) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(5);
  const std::string long_name(record::kMaxNameBytes + 100, 'x');
  OnNewThread([&] {
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(recorder.EnterScope(long_name.c_str()), PROTOND_OK);
      EXPECT_EQ(recorder.ExitScope(long_name.c_str()), PROTOND_OK);
    }
    EXPECT_EQ(recorder.EnterScope("next"), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("next"), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(
      Kinds(records),
      (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef, Kind::kNotice,
                         Kind::kScopeEnter, Kind::kScopeExit, Kind::kScopeEnter, Kind::kScopeExit,
                         Kind::kContextDef, Kind::kScopeEnter, Kind::kScopeExit}));
  EXPECT_EQ(records[2].name, long_name.substr(0, record::kMaxNameBytes));
  EXPECT_EQ(records[3].name, "scope name of 4196 bytes cut to its first 4096 bytes: '" +
                                 std::string(40, 'x') + "...'");
  EXPECT_EQ(records[8].name, "next");
  EXPECT_EQ(records[8].ref_id, record::kRootContextId);  // not under the long scope
}

TEST(RecorderTest, ANameIsCutAtACharactersStart) {
  // 4095 bytes, then a 2-byte character across the limit: the cut leaves the character out.
  const std::string name = std::string(record::kMaxNameBytes - 1, 'x') + "\xc3\xa9" + "yz";
  EXPECT_EQ(CutName(name), std::string(record::kMaxNameBytes - 1, 'x'));
  EXPECT_EQ(CutName("ab\xe2\x82\xac", 4), "ab");  // a 3-byte character (the euro sign)
  EXPECT_EQ(CutName("short"), "short");
  // Not UTF-8: no more than 3 bytes are given back.
  EXPECT_EQ(CutName(std::string(8, '\x80'), 6), std::string(3, '\x80'));

  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(5);
  OnNewThread([&] {
    EXPECT_EQ(recorder.EnterScope(name.c_str()), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope(name.c_str()), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_GE(records.size(), 4u);
  EXPECT_EQ(records[2].name, std::string(record::kMaxNameBytes - 1, 'x'));
  EXPECT_EQ(records[3].name, "scope name of 4099 bytes cut to its first 4095 bytes: '" +
                                 std::string(40, 'x') + "...'");
}

// Before (issue 27): every scope was recorded, however deep; the daemon dropped those past 4096
// levels without a word (and took seconds over them, stalling every client), and a lane that had
// to catch up on definitions recursed once per missing ancestor, crashing the program.
TEST(RecorderTest, ScopesNestedDeeperThanTheLimitAreLeftOutCountedAndSaidOnce) {
  auto region = ring::WritableRegion::Create({1, 1u << 20});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(5);
  OnNewThread([&] {
    for (int depth = 1; depth <= kMaxTreeDepth + 2; ++depth) {
      EXPECT_EQ(recorder.EnterScope("s"), depth <= kMaxTreeDepth ? PROTOND_OK : PROTOND_DROPPED);
    }
    EXPECT_EQ(recorder.AddInt64Metric("m", 1), PROTOND_DROPPED);
    for (int depth = kMaxTreeDepth + 2; depth >= 1; --depth) {
      EXPECT_EQ(recorder.ExitScope("s"), depth <= kMaxTreeDepth ? PROTOND_OK : PROTOND_DROPPED);
    }
    EXPECT_EQ(recorder.EnterScope("next"), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("next"), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  std::vector<std::string> notices;
  int definitions = 0;
  for (const record::Record& r : records) {
    if (r.kind == Kind::kNotice) notices.emplace_back(r.name);
    if (r.kind == Kind::kContextDef) ++definitions;
  }
  EXPECT_EQ(notices, std::vector<std::string>{"scopes nested deeper than 4096 levels are left "
                                              "out; their records count as dropped"});
  EXPECT_EQ(definitions, kMaxTreeDepth + 1);  // "s" at each level, and "next"
  EXPECT_EQ(records.back().kind, Kind::kScopeExit);
  EXPECT_EQ(ring::LaneHeaderAt(region->base(), 0)->dropped_records.load(), 5u);
}

// A session that starts while the thread is deep: its lane defines every level at the next record,
// outermost first, without a level of recursion (and a record-sized buffer) each.
TEST(RecorderTest, ALaneCatchesUpOnDefinitionsAsDeepAsTheLimit) {
  auto region = ring::WritableRegion::Create({1, 1u << 20});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  OnNewThread([&] {
    for (int depth = 1; depth < kMaxTreeDepth; ++depth) {
      EXPECT_EQ(recorder.EnterScope("s"), PROTOND_INACTIVE);
    }
    recorder.StartRecording(5);
    EXPECT_EQ(recorder.EnterScope("last"), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(records.size(), kMaxTreeDepth + 3u);  // ThreadBegin, SessionBegin, the definitions
  uint32_t parent = record::kRootContextId;
  for (int depth = 1; depth <= kMaxTreeDepth; ++depth) {
    const record::Record& definition = records[depth + 1];
    ASSERT_EQ(definition.kind, Kind::kContextDef);
    EXPECT_EQ(definition.ref_id, parent);
    parent = definition.aux;
  }
  EXPECT_EQ(records[kMaxTreeDepth + 1].name, "last");
  EXPECT_EQ(records.back().kind, Kind::kScopeEnter);
}

TEST(RecorderTest, DeviceInfoThatDoesNotFitIsCountedAsDropped) {
  auto region = ring::WritableRegion::Create({1, ring::kMinLaneDataBytes});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  OnNewThread([&] { EXPECT_EQ(recorder.WriteDeviceInfo(0, H100(), "H100"), PROTOND_INACTIVE); });
  recorder.StartRecording(1);
  // 40 + 4096 bytes: more than the whole 4096-byte lane.
  const std::string long_name(record::kMaxNameBytes, 'x');
  OnNewThread([&] { EXPECT_EQ(recorder.WriteDeviceInfo(0, H100(), long_name), PROTOND_DROPPED); });
  auto* lane = ring::LaneHeaderAt(region->base(), 0);
  EXPECT_EQ(lane->dropped_records.load(), 1u);
  EXPECT_EQ(lane->write_pos.load(), 24u);  // ThreadBegin and SessionBegin only
}

TEST(RecorderTest, InstrumentationBufferGoesAsABlobUnderTheInnermostScope) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(4);
  const std::vector<uint8_t> buffer(6000, 0xab);  // 2 chunks
  const std::vector<std::string_view> scopes = {"loop", "load"};
  record::InstrumentationBufferHeader header{};
  header.layout = static_cast<uint32_t>(record::InstrumentationLayout::kCircular);
  header.block_bytes = 3000;
  header.num_warps = 4;
  OnNewThread([&] {
    ASSERT_EQ(recorder.EnterScope("step"), PROTOND_OK);
    EXPECT_EQ(recorder.WriteInstrumentationBuffer("kern", header, {}, scopes, buffer), PROTOND_OK);
    header.block_bytes = 7;
    EXPECT_EQ(recorder.WriteInstrumentationBuffer("kern", header, {}, scopes, buffer),
              PROTOND_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(LastError(),
                 "instrumentation buffer of 6000 bytes is not a whole number of 7-byte blocks");
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  ASSERT_EQ(Kinds(records), (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin,
                                               Kind::kContextDef, Kind::kScopeEnter, Kind::kNameDef,
                                               Kind::kBlobChunk, Kind::kBlobChunk}));
  EXPECT_EQ(records[4].name, "kern");
  std::string blob;
  for (const auto& r : {records[5], records[6]}) {
    EXPECT_EQ(r.aux, records[5].aux);
    EXPECT_EQ(r.blob.offset, blob.size());
    blob.append(r.name);
  }
  auto parsed = record::ParseInstrumentationBlob(blob);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.context_id, records[3].aux);
  EXPECT_EQ(parsed->header.kernel_name_id, records[4].aux);
  EXPECT_EQ(parsed->scope_names, scopes);
  EXPECT_EQ(parsed->buffer.size(), buffer.size());
}

TEST(RecorderTest, AWrongInstrumentationBufferIsRefusedWhetherOrNotASessionRecords) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);  // no session records
  const std::vector<uint8_t> buffer(6000, 0xab);
  const std::vector<std::string_view> scopes = {"loop", ""};
  record::InstrumentationBufferHeader header{};
  header.layout = static_cast<uint32_t>(record::InstrumentationLayout::kCircular);
  header.block_bytes = 3000;
  header.num_warps = 4;
  OnNewThread([&] {
    EXPECT_EQ(recorder.WriteInstrumentationBuffer("kern", header, {}, scopes, buffer),
              PROTOND_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(LastError(),
                 "instrumentation scope 1 has a name of 0 bytes; it must have 1 to 4096 bytes and "
                 "no zero byte");
    EXPECT_EQ(recorder.WriteInstrumentationBuffer("kern", header, {}, {scopes.data(), 1}, buffer),
              PROTOND_INACTIVE);
  });
}

TEST(RecorderTest, InactiveRecordsNothingButKeepsTheStack) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  OnNewThread([&] {
    EXPECT_EQ(recorder.EnterScope("outer"), PROTOND_INACTIVE);
    recorder.StartRecording(3);
    EXPECT_EQ(recorder.EnterScope("inner"), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("inner"), PROTOND_OK);
    // outer's enter was never written, so its exit is not either.
    EXPECT_EQ(recorder.ExitScope("outer"), PROTOND_INACTIVE);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kContextDef, Kind::kScopeEnter, Kind::kScopeExit}));
}

TEST(RecorderTest, ScopeMismatchAndMissingScopeAreErrorsWithMessages) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  OnNewThread([&] {
    EXPECT_EQ(recorder.ExitScope(nullptr), PROTOND_ERR_NO_SCOPE);
    recorder.EnterScope("a");
    EXPECT_EQ(recorder.ExitScope("b"), PROTOND_ERR_SCOPE_MISMATCH);
    EXPECT_STREQ(LastError(), "Scope name mismatch: exiting 'b' but the innermost scope is 'a'");
    EXPECT_EQ(recorder.ExitScope("a"), PROTOND_OK);
    EXPECT_EQ(recorder.EnterScope(""), PROTOND_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(recorder.ExitState(), PROTOND_ERR_NO_SCOPE);
  });
}

// Proton's launch hook: the kernel's node is a frame under the innermost scope; metrics given
// while it is open land on it, and the GPU tracer attributes the launch to it.
TEST(RecorderTest, LaunchFrameTakesMetricsAndLaunchesUntilItCloses) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  uint32_t frame = 0;
  uint32_t step = 0;
  OnNewThread([&] {
    recorder.EnterScope("step");
    step = recorder.CurrentContext();
    EXPECT_EQ(recorder.EnterLaunch("matmul"), PROTOND_OK);
    frame = recorder.CurrentContext();
    EXPECT_EQ(recorder.AddInt64Metric("flops16", 1024), PROTOND_OK);
    EXPECT_EQ(recorder.ExitLaunch(), PROTOND_OK);
    EXPECT_EQ(recorder.CurrentContext(), step);
    EXPECT_EQ(recorder.EnterLaunch("matmul"), PROTOND_OK);
    EXPECT_EQ(recorder.CurrentContext(), frame) << "the same frame again";
    recorder.ApiCallReturned(/*kernel_launch=*/true);  // what the GPU tracer does then
    EXPECT_EQ(recorder.CurrentContext(), step);
    EXPECT_EQ(recorder.ExitLaunch(), PROTOND_ERR_NO_SCOPE);
    EXPECT_STREQ(LastError(), "no kernel launch is open on this thread");
    EXPECT_EQ(recorder.EnterLaunch(""), PROTOND_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(recorder.ExitScope("step"), PROTOND_OK) << "a launch frame is not a scope";
  });
  const ContextEntry* entry = recorder.names().Context(frame);
  EXPECT_TRUE(entry->launch_frame);
  EXPECT_EQ(entry->parent_id, step);
  EXPECT_EQ(entry->name, "matmul");
  EXPECT_NE(frame, recorder.names().InternContext(step, "matmul")) << "a scope of that name";

  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kScopeEnter, Kind::kContextDef, Kind::kNameDef, Kind::kMetric,
                               Kind::kScopeExit}));
  EXPECT_EQ(records[4].name, "matmul");
  EXPECT_EQ(records[4].ref_id, step);
  EXPECT_EQ(records[6].aux, frame);
}

// GPU work of other threads without scopes lands in the main thread's innermost scope, live
// (autograd's threads under the scope around backward()); their own scopes start from ROOT.
TEST(RecorderTest, GpuWorkOfThreadsWithoutScopesLandsInTheMainThreadsScope) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  std::atomic<uint32_t> main_tid{0};
  std::latch main_known(1), recorder_made(1), main_entered(1), checked(1), main_exited(1);
  std::optional<Recorder> recorder;
  uint32_t train = 0;
  std::thread main_thread([&] {
    main_tid = static_cast<uint32_t>(gettid());
    main_known.count_down();
    recorder_made.wait();
    recorder->EnterScope("train");
    train = recorder->CurrentContext();
    main_entered.count_down();
    checked.wait();
    recorder->ExitScope("train");
    main_exited.count_down();
  });
  main_known.wait();
  recorder.emplace(&*region, main_tid.load());
  recorder->StartRecording(1);
  recorder_made.count_down();
  main_entered.wait();
  OnNewThread([&] {
    EXPECT_EQ(recorder->CurrentContext(), train);
    EXPECT_EQ(recorder->EnterLaunch("kernel"), PROTOND_OK);
    EXPECT_EQ(recorder->names().Context(recorder->CurrentContext())->parent_id, train);
    recorder->ApiCallReturned(/*kernel_launch=*/true);
    EXPECT_EQ(recorder->EnterScope("worker"), PROTOND_OK);
    const uint32_t worker = recorder->CurrentContext();
    EXPECT_EQ(recorder->names().Context(worker)->parent_id, record::kRootContextId)
        << "its own scopes start from ROOT";
    EXPECT_EQ(recorder->ExitScope("worker"), PROTOND_OK);
    EXPECT_EQ(recorder->ExitScope(nullptr), PROTOND_ERR_NO_SCOPE) << "train is not its own";
  });
  checked.count_down();
  main_exited.wait();
  OnNewThread([&] { EXPECT_EQ(recorder->CurrentContext(), record::kRootContextId); });
  main_thread.join();
}

// context="python": a provider names where GPU work goes.
uint32_t g_provided = 0;
int g_provider_calls = 0;

TEST(RecorderTest, ContextProviderPlacesGpuWorkAndLaunchFrames) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  const uint32_t frames = recorder.names().InternContext(
      recorder.names().InternContext(record::kRootContextId, "train.py:10@<module>"),
      "train.py:4@step");
  OnNewThread([&] {
    recorder.EnterScope("scope");
    const uint32_t scope = recorder.CurrentContext();
    recorder.SetContextProvider([] {
      ++g_provider_calls;
      return g_provided;
    });
    g_provided = frames;
    // A runtime call and the driver call inside it: the provider is asked once.
    EXPECT_EQ(recorder.CurrentContext(), frames);
    EXPECT_EQ(recorder.CurrentContext(), frames);
    EXPECT_EQ(g_provider_calls, 1);
    recorder.ApiCallReturned(/*kernel_launch=*/false);
    EXPECT_EQ(recorder.EnterLaunch("kernel"), PROTOND_OK);
    EXPECT_EQ(recorder.names().Context(recorder.CurrentContext())->parent_id, frames);
    recorder.ApiCallReturned(/*kernel_launch=*/true);
    g_provided = PROTOND_NO_CONTEXT;
    EXPECT_EQ(recorder.CurrentContext(), scope);
    recorder.ApiCallReturned(/*kernel_launch=*/false);
    g_provided = 1u << 30;  // no such context
    EXPECT_EQ(recorder.CurrentContext(), scope);
    recorder.ApiCallReturned(/*kernel_launch=*/false);
    recorder.SetContextProvider(nullptr);
    g_provided = frames;
    EXPECT_EQ(recorder.CurrentContext(), scope);
    recorder.ExitScope("scope");
  });
}

TEST(RecorderTest, MetricKeepsItsFirstType) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  OnNewThread([&] {
    EXPECT_EQ(recorder.AddDoubleMetric("a", 1.5), PROTOND_OK);
    EXPECT_EQ(recorder.AddInt64Metric("a", 1), PROTOND_ERR_METRIC_TYPE);
    EXPECT_STREQ(LastError(),
                 "Metric value type mismatch for valueId 1 (a): current=double, new=int64_t");
  });
}

TEST(RecorderTest, VectorMetricIsOneRecordAfterItsNameDefinition) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  OnNewThread([&] {
    ASSERT_EQ(recorder.EnterScope("s"), PROTOND_OK);
    const int64_t values[] = {1, 2, 3};
    EXPECT_EQ(recorder.AddVectorMetric("v", record::NameClass::kInt64VectorMetric, values, 3),
              PROTOND_OK);
    const double more[] = {0.5, 1.5};
    EXPECT_EQ(recorder.AddVectorMetric("w", record::NameClass::kDoubleVectorMetric, more, 2),
              PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const std::vector<record::Record> records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kScopeEnter, Kind::kNameDef, Kind::kVectorMetric,
                               Kind::kNameDef, Kind::kVectorMetric}));
  EXPECT_EQ(records[4].flags, static_cast<uint8_t>(record::NameClass::kInt64VectorMetric));
  const record::Record& v = records[5];
  EXPECT_EQ(v.ref_id, records[4].aux);
  EXPECT_EQ(v.aux, records[2].aux);  // the open scope
  ASSERT_EQ(v.elements.size(), 3u * 8);
  int64_t third;
  std::memcpy(&third, v.elements.data() + 16, sizeof(third));
  EXPECT_EQ(third, 3);
  EXPECT_EQ(records[7].flags, static_cast<uint8_t>(record::NameClass::kDoubleVectorMetric));
}

TEST(RecorderTest, VectorMetricKeepsItsTypeAndCountAndRefusesBadCounts) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  OnNewThread([&] {
    const int64_t values[record::kMaxVectorMetricElements + 1] = {1, 2, 3};
    EXPECT_EQ(recorder.AddVectorMetric("v", record::NameClass::kInt64VectorMetric, values, 3),
              PROTOND_OK);
    EXPECT_EQ(recorder.AddVectorMetric("v", record::NameClass::kInt64VectorMetric, values, 2),
              PROTOND_ERR_METRIC_TYPE);
    EXPECT_STREQ(LastError(), "size mismatch for metric v: current=3, new=2");
    EXPECT_EQ(recorder.AddInt64Metric("v", 1), PROTOND_ERR_METRIC_TYPE);
    EXPECT_STREQ(LastError(),
                 "Metric value type mismatch for valueId 1 (v): current=std::vector<int64_t>, "
                 "new=int64_t");
    EXPECT_EQ(recorder.AddDoubleMetric("s", 1), PROTOND_OK);
    EXPECT_EQ(recorder.AddVectorMetric("s", record::NameClass::kDoubleVectorMetric, values, 1),
              PROTOND_ERR_METRIC_TYPE);
    EXPECT_STREQ(LastError(),
                 "Metric value type mismatch for valueId 2 (s): current=double, "
                 "new=std::vector<double>");
    EXPECT_EQ(recorder.AddVectorMetric("big", record::NameClass::kInt64VectorMetric, values,
                                       record::kMaxVectorMetricElements + 1),
              PROTOND_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(LastError(), "vector metric 'big' has 513 elements; it needs 1 to 512");
    EXPECT_EQ(recorder.AddVectorMetric("none", record::NameClass::kInt64VectorMetric, values, 0),
              PROTOND_ERR_INVALID_ARGUMENT);
    // The longest vector fits a record.
    EXPECT_EQ(recorder.AddVectorMetric("long", record::NameClass::kInt64VectorMetric, values,
                                       record::kMaxVectorMetricElements),
              PROTOND_OK);
  });
}

TEST(RecorderTest, FullLaneDropsAreCountedExactly) {
  auto region = ring::WritableRegion::Create({1, ring::kMinLaneDataBytes});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  int written = 0;
  int dropped = 0;
  OnNewThread([&] {
    for (int i = 0; i < 1000; ++i) {
      (recorder.EnterScope("s") == PROTOND_OK ? written : dropped)++;
      const protond_result exit = recorder.ExitScope("s");
      if (exit == PROTOND_OK) written++;
      if (exit == PROTOND_DROPPED) dropped++;
    }
  });
  auto* lane = ring::LaneHeaderAt(region->base(), 0);
  EXPECT_GT(dropped, 0);
  // Every call is written or counted: an exit whose enter was lost is lost with it and counted
  // too, so that stored + dropped is what the program recorded (tests/faults).
  EXPECT_EQ(written + dropped, 2000);
  EXPECT_EQ(lane->dropped_records.load(), static_cast<uint64_t>(dropped));
  EXPECT_EQ(lane->write_pos.load(), ring::kMinLaneDataBytes);
}

// A state whose enter was lost: its exit is counted as lost too.
TEST(RecorderTest, ExitOfALostStateIsCountedAsDropped) {
  auto region = ring::WritableRegion::Create({1, ring::kMinLaneDataBytes});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  OnNewThread([&] {
    while (recorder.EnterScope("fill") == PROTOND_OK) {
    }
    auto* lane = ring::LaneHeaderAt(region->base(), 0);
    const uint64_t before = lane->dropped_records.load();
    EXPECT_EQ(recorder.EnterState("io"), PROTOND_DROPPED);
    EXPECT_EQ(recorder.ExitState(), PROTOND_DROPPED);
    EXPECT_EQ(lane->dropped_records.load(), before + 2);
  });
}

TEST(RecorderTest, ThreadsUseSeparateLanesAndReleaseThemAtExit) {
  auto region = ring::WritableRegion::Create({2, 1u << 16});
  Recorder recorder(&*region, getpid(), kNs);
  recorder.StartRecording(1);
  for (int i = 0; i < 5; ++i) {
    OnNewThread([&] { EXPECT_EQ(recorder.EnterScope("t"), PROTOND_OK); });
  }
  EXPECT_EQ(ring::LaneHeaderAt(region->base(), 0)->claim.load(), ring::kLaneFree);
  EXPECT_EQ(static_cast<ring::RegionHeader*>(region->base())->no_lane_dropped_records.load(), 0u);
}

// Each recording session has a lane of its own on each thread: a record goes to every session
// recording when it is written, and an exit only where its enter went.
TEST(RecorderTest, SessionsRecordingTogetherGetLanesOfTheirOwn) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  ASSERT_TRUE(recorder.StartRecording(1));
  OnNewThread([&] {
    EXPECT_EQ(recorder.EnterScope("a"), PROTOND_OK);
    ASSERT_TRUE(recorder.StartRecording(2));
    EXPECT_EQ(recorder.EnterScope("b"), PROTOND_OK);
    EXPECT_EQ(recorder.AddInt64Metric("flops", 10), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("b"), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("a"), PROTOND_OK);  // written for session 1 only
    ASSERT_TRUE(recorder.StopRecording(1));
    EXPECT_EQ(recorder.EnterScope("c"), PROTOND_OK);
    EXPECT_EQ(recorder.ExitScope("c"), PROTOND_OK);
  });
  EXPECT_EQ(recorder.RecordingSessions(), std::vector<uint64_t>{2});
  std::vector<uint8_t> first_bytes;
  std::vector<uint8_t> second_bytes;
  const auto first = ReadLane(*region, 0, first_bytes);
  const auto second = ReadLane(*region, 1, second_bytes);
  EXPECT_EQ(Kinds(first),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kScopeEnter, Kind::kContextDef, Kind::kScopeEnter,
                               Kind::kNameDef, Kind::kMetric, Kind::kScopeExit, Kind::kScopeExit}));
  EXPECT_EQ(first[1].value, 1u);
  EXPECT_EQ(Kinds(second),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kContextDef, Kind::kScopeEnter, Kind::kNameDef, Kind::kMetric,
                               Kind::kScopeExit, Kind::kContextDef, Kind::kScopeEnter,
                               Kind::kScopeExit}));
  EXPECT_EQ(second[1].value, 2u);
  EXPECT_EQ(second[3].name, "b");
  EXPECT_EQ(second[8].name, "c");
  EXPECT_EQ(first[5].value, second[4].value);  // b's enter: one clock reading for both
}

TEST(RecorderTest, AFreedSlotServesTheNextSessionWithoutItsPredecessorsExits) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  for (uint64_t id = 1; id <= kMaxSessions; ++id) EXPECT_TRUE(recorder.StartRecording(id));
  EXPECT_FALSE(recorder.StartRecording(kMaxSessions + 1));  // every slot is taken
  EXPECT_FALSE(recorder.StopRecording(kMaxSessions + 1));
  for (uint64_t id = 2; id <= kMaxSessions; ++id) {
    EXPECT_TRUE(recorder.StopRecording(id));
    EXPECT_TRUE(recorder.FinishStopping(id));
  }
  EXPECT_FALSE(recorder.StartRecording(1));  // already recording
  OnNewThread([&] {
    EXPECT_EQ(recorder.EnterScope("a"), PROTOND_OK);
    EXPECT_EQ(recorder.EnterState("s"), PROTOND_OK);
    EXPECT_TRUE(recorder.StopRecording(1));
    EXPECT_TRUE(recorder.FinishStopping(1));
    EXPECT_TRUE(recorder.StartRecording(9));  // slot 0 again: the same lane
    EXPECT_EQ(recorder.ExitState(), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.ExitScope("a"), PROTOND_INACTIVE);
    EXPECT_EQ(recorder.EnterScope("b"), PROTOND_OK);
  });
  std::vector<uint8_t> bytes;
  const auto records = ReadLane(*region, 0, bytes);
  EXPECT_EQ(Kinds(records),
            (std::vector<Kind>{Kind::kThreadBegin, Kind::kSessionBegin, Kind::kContextDef,
                               Kind::kScopeEnter, Kind::kNameDef, Kind::kStateEnter,
                               Kind::kSessionBegin, Kind::kContextDef, Kind::kScopeEnter}));
  EXPECT_EQ(records[6].value, 9u);
  recorder.DisableForever();
  EXPECT_FALSE(recorder.recording());
  EXPECT_FALSE(recorder.StartRecording(10));
}

// GPU work arrives long after its launch: it goes to the sessions that recorded at the launch
// and still record, not to one started since, nor to one paused and resumed in between.
TEST(RecorderTest, GpuWorkGoesToTheSessionsThatRecordedAtItsLaunch) {
  auto region = ring::WritableRegion::Create({4, 1u << 16});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  ASSERT_TRUE(recorder.StartRecording(1));
  const uint32_t only_first = recorder.RecordingSet();
  ASSERT_TRUE(recorder.StartRecording(2));
  const uint32_t both = recorder.RecordingSet();
  EXPECT_NE(only_first, both);
  ASSERT_TRUE(recorder.StopRecording(1));
  ASSERT_TRUE(recorder.FinishStopping(1));
  const uint32_t only_second = recorder.RecordingSet();
  ASSERT_TRUE(recorder.StartRecording(1));  // resumed: records again, in the freed slot 0
  OnNewThread([&] {
    const auto activity = record::MakeGpuActivity(Kind::kMemset, 0, record::kRootContextId);
    EXPECT_EQ(recorder.WriteGpuActivity(activity, only_first), PROTOND_OK);   // 1
    EXPECT_EQ(recorder.WriteGpuActivity(activity, both), PROTOND_OK);         // 1 and 2
    EXPECT_EQ(recorder.WriteGpuActivity(activity, only_second), PROTOND_OK);  // 2
    // Unknown, or a set whose entry was reused since: the sessions recording now.
    EXPECT_EQ(recorder.WriteGpuActivity(activity, Recorder::kUnknownRecordingSet), PROTOND_OK);
    for (int i = 0; i < 300; ++i) {
      recorder.StopRecording(2);
      recorder.FinishStopping(2);
      recorder.StartRecording(2);
    }
    EXPECT_EQ(recorder.WriteGpuActivity(activity, only_first), PROTOND_OK);  // 1 and 2
    recorder.StopRecording(1);
    recorder.FinishStopping(1);
    EXPECT_EQ(recorder.WriteGpuActivity(activity, both), PROTOND_OK);  // reused too: 2
    // The set after the loop's last stop of session 2: 2 did not record then.
    EXPECT_EQ(recorder.WriteGpuActivity(activity, recorder.RecordingSet() - 2), PROTOND_INACTIVE);
  });
  auto memsets = [&](uint32_t lane, uint64_t session) {
    std::vector<uint8_t> bytes;
    int count = 0;
    uint64_t announced = 0;
    for (const record::Record& r : ReadLane(*region, lane, bytes)) {
      if (r.kind == Kind::kSessionBegin) announced = r.value;
      if (r.kind == Kind::kMemset && announced == session) count++;
    }
    return count;
  };
  EXPECT_EQ(memsets(0, 1), 4);  // slot 0: session 1 (resumed there)
  EXPECT_EQ(memsets(1, 2), 5);  // slot 1: session 2
}

// CUPTI delivers a buffer of tens of thousands of records at once: GPU work waits for the daemon
// to drain the lane instead of being dropped, and stops waiting on a lane nobody drains.
TEST(RecorderTest, GpuWorkWaitsForTheDaemonToDrainAFullLane) {
  auto region = ring::WritableRegion::Create({1, ring::kMinLaneDataBytes});
  ASSERT_TRUE(region.ok());
  Recorder recorder(&*region, getpid(), kNs);
  ASSERT_TRUE(recorder.StartRecording(1));
  auto reader = ring::RegionReader::Attach(dup(region->fd()), region->bytes());
  ASSERT_TRUE(reader.ok()) << reader.status();
  const auto activity = record::MakeGpuActivity(Kind::kMemset, 0, record::kRootContextId);
  constexpr int kRecords = 1000;  // 40 lanes' worth
  std::atomic<bool> writing{true};
  std::thread daemon([&] {
    uint64_t read_pos = 0;
    std::vector<uint8_t> bytes;
    while (writing.load()) {
      auto end = reader->CopyLane(0, read_pos, bytes);
      if (end.ok()) read_pos = *end;
      reader->ReleaseLane(0, read_pos);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  OnNewThread([&] {
    for (int i = 0; i < kRecords; ++i) {
      EXPECT_EQ(recorder.WriteGpuActivity(activity, Recorder::kUnknownRecordingSet), PROTOND_OK);
    }
  });
  writing.store(false);
  daemon.join();
  EXPECT_EQ(ring::LaneHeaderAt(region->base(), 0)->dropped_records.load(), 0u);

  // Nobody drains now: one wait, then drops without waiting again.
  const auto before = std::chrono::steady_clock::now();
  int dropped = 0;
  OnNewThread([&] {
    for (int i = 0; i < 200; ++i) {
      dropped +=
          recorder.WriteGpuActivity(activity, Recorder::kUnknownRecordingSet) == PROTOND_DROPPED;
    }
  });
  const auto took = std::chrono::steady_clock::now() - before;
  EXPECT_GT(dropped, 100);
  EXPECT_GE(took, Recorder::kGpuRoomWait);
  EXPECT_LT(took, 3 * Recorder::kGpuRoomWait);
}

}  // namespace
}  // namespace protond::shim
