// The daemon's ingest and aggregation rate on one core (goal: at least 20 million records per
// second): a lane's bytes as the sample workload writes them (nested scopes and metrics), decoded
// and folded into a call tree. Run:
//   build-rel/bin/protond_ingest_benchmark --benchmark_repetitions=10
//   --benchmark_report_aggregates_only
#include <vector>

#include "benchmark/benchmark.h"
#include "common/record/record_format.h"
#include "daemon/aggregate/call_tree.h"
#include "daemon/ingest/process_decoder.h"

namespace {

using protond::record::Kind;

template <typename T>
void Append(std::vector<uint8_t>& out, const T& record) {
  const auto* p = reinterpret_cast<const uint8_t*>(&record);
  out.insert(out.end(), p, p + sizeof(T));
}

void AppendDef(std::vector<uint8_t>& out, uint32_t id, uint32_t parent, std::string_view name) {
  std::vector<uint8_t> def(protond::record::NamedRecordBytes(name.size()));
  protond::record::EncodeContextDef(id, parent, name, def.data());
  out.insert(out.end(), def.begin(), def.end());
}

// One lane: definitions, then `steps` x (step > forward + metric, backward + metric). With `tsc`,
// timestamps are TSC ticks (30 ticks apart, as a 3 GHz TSC 10 ns apart) after one clock pair.
std::vector<uint8_t> MakeLane(int steps, bool tsc, int64_t* records) {
  std::vector<uint8_t> lane;
  Append(lane, protond::record::MakeSessionBegin(1));
  if (tsc) Append(lane, protond::record::MakeClockSync(1'000'000, 5'000'000'000));
  const uint8_t flags = tsc ? protond::record::kTimestampTsc : 0;
  const uint64_t tick = tsc ? 30 : 1;
  AppendDef(lane, 1, 0, "step");
  AppendDef(lane, 2, 1, "forward");
  AppendDef(lane, 3, 1, "backward");
  std::vector<uint8_t> name(protond::record::NamedRecordBytes(5));
  protond::record::EncodeNameDef(1, protond::record::NameClass::kInt64Metric, "flops", name.data());
  lane.insert(lane.end(), name.begin(), name.end());
  uint64_t t = 1'000'000;
  auto timed = [&](Kind kind, uint32_t context) {
    Append(lane, protond::record::MakeTimed(kind, context, t, flags));
    t += tick;
  };
  for (int i = 0; i < steps; ++i) {
    timed(Kind::kScopeEnter, 1);
    for (uint32_t child : {2u, 3u}) {
      timed(Kind::kScopeEnter, child);
      Append(lane, protond::record::MakeInt64Metric(child, 1, 1000));
      timed(Kind::kScopeExit, child);
    }
    timed(Kind::kScopeExit, 1);
  }
  *records = 8LL * steps;
  return lane;
}

// Arguments: steps, and 1 for TSC timestamps (converted with a clock pair and protond's rate).
void BM_DecodeAndAggregate(benchmark::State& state) {
  int64_t records_per_lane = 0;
  const std::vector<uint8_t> lane =
      MakeLane(static_cast<int>(state.range(0)), state.range(1) != 0, &records_per_lane);
  protond::aggregate::CallTree tree(1);
  uint64_t records = 0;
  std::vector<std::string> problems;
  protond::ingest::SessionSink sink{&tree, &records, &problems};
  protond::ingest::ProcessDecoder decoder(1);
  decoder.SetHostTsc({{1'000'000, 5'000'000'000}, 3.0});
  int64_t total = 0;
  for (auto _ : state) {
    protond::ingest::LaneCursor cursor;
    auto status = decoder.DecodeLane(cursor, lane, [&](uint64_t) { return &sink; });
    benchmark::DoNotOptimize(status);
    total += records_per_lane;
  }
  state.SetItemsProcessed(total);
  state.SetBytesProcessed(static_cast<int64_t>(lane.size()) * state.iterations());
}
BENCHMARK(BM_DecodeAndAggregate)->Args({1 << 14, 0})->Args({1 << 14, 1});

}  // namespace

BENCHMARK_MAIN();
