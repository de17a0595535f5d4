// Feeds arbitrary bytes, read as collective records from a hostile plugin, through the whole
// jobs view: validation, matching (with clock offsets from the input too), the verdict, its text
// and the summary. None may crash, overflow or loop; and what matching answers must hold its
// promises (match.h): arrivals in order, a complete call has every rank, lateness and waits are
// never negative.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "view/jobs/collective_summary.h"
#include "view/jobs/match.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"
#include "view/jobs/verdict_text.h"

namespace {

using protond::view::CollectiveRecordUntrusted;

// Mostly a few values, so that records meet in calls and communicators; sometimes anything.
std::string PickText(FuzzedDataProvider& in, std::initializer_list<const char*> usual) {
  if (in.ConsumeBool()) return in.ConsumeRandomLengthString(300);
  return *(usual.begin() + in.ConsumeIntegralInRange<size_t>(0, usual.size() - 1));
}

template <typename T>
T PickNumber(FuzzedDataProvider& in, T usual_max) {
  return in.ConsumeBool() ? in.ConsumeIntegral<T>() : in.ConsumeIntegralInRange<T>(0, usual_max);
}

CollectiveRecordUntrusted ReadRecord(FuzzedDataProvider& in) {
  CollectiveRecordUntrusted r;
  r.job = PickText(in, {"job-7", ""});
  r.host = PickText(in, {"node01", "node02", "node03"});
  r.rank = PickNumber<int64_t>(in, 4);
  r.pid = PickNumber<int64_t>(in, 4);
  r.comm_id = PickNumber<uint64_t>(in, 2);
  r.seq = PickNumber<uint64_t>(in, 8);
  r.op = PickText(in, {"all_reduce", "AllGather", "send", "bogus", ""});
  r.bytes = PickNumber<uint64_t>(in, 1 << 20);
  r.datatype = PickText(in, {"f32"});
  r.algorithm = PickText(in, {"RING", "TREE"});
  r.protocol = PickText(in, {"LL", "SIMPLE"});
  r.nranks = PickNumber<int64_t>(in, 4);
  r.start_ns = PickNumber<int64_t>(in, 1'000'000);
  r.end_ns = PickNumber<int64_t>(in, 2'000'000);
  r.scope_path = PickText(in, {"train/step", ""});
  return r;
}

void CheckMatch(const protond::view::MatchedJob& job) {
  for (const auto& comm : job.communicators) {
    for (const auto& call : comm.calls) {
      if (call.complete && static_cast<int>(call.arrivals.size()) != call.nranks) __builtin_trap();
      for (size_t i = 0; i < call.arrivals.size(); ++i) {
        const auto& a = call.arrivals[i];
        if (i > 0 && a.start_ns < call.arrivals[i - 1].start_ns) __builtin_trap();
        if (a.lateness_ns < 0 || a.wait_ns < 0) __builtin_trap();
      }
      if (call.transfer_ns < 0 || call.bus_bw_gbps < 0) __builtin_trap();
      if (!call.judged() && call.last_rank != -1) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  protond::view::MatchOptions options;
  for (int i = in.ConsumeIntegralInRange(0, 3); i > 0; --i) {
    options.clock_offset_ns[PickText(in, {"node01", "node02"})] = in.ConsumeIntegral<int64_t>();
  }
  std::vector<CollectiveRecordUntrusted> records;
  while (in.remaining_bytes() > 0 && records.size() < 512) records.push_back(ReadRecord(in));
  const auto valid = protond::view::ValidateCollectives(records, in.ConsumeBool() ? "job-7" : "");
  if (valid.records.size() + valid.stats.TotalRejected() != records.size()) __builtin_trap();
  const protond::view::MatchedJob job = protond::view::MatchCollectives(valid.records, options);
  CheckMatch(job);
  const auto verdict = protond::view::JudgeJob(job, {});
  const std::string text = protond::view::RenderJobVerdict(verdict);
  if (text.empty()) __builtin_trap();
  protond::view::SummarizeCollectives(job);
  return 0;
}
