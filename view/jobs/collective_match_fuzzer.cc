// Feeds arbitrary bytes, read as collective records from a hostile plugin, through the whole
// jobs view: validation, matching (with clock offsets from the input too), the verdict, its text
// and the summary. None may crash, overflow or loop; and what matching answers must hold its
// promises (match.h): arrivals in order, a complete call has every rank, lateness and waits are
// never negative.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
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

// One call: the ranks' records share its communicator, seq, op and size unless the input says
// otherwise, so that complete calls (and their arithmetic) are common, not a rare accident.
void ReadCall(FuzzedDataProvider& in, std::vector<CollectiveRecordUntrusted>& out) {
  CollectiveRecordUntrusted call;
  call.job = PickText(in, {"job-7", ""});
  call.comm_id = PickNumber<uint64_t>(in, 2);
  call.seq = PickNumber<uint64_t>(in, 8);
  call.op = PickText(in, {"all_reduce", "AllGather", "send", "bogus", ""});
  call.bytes = PickNumber<uint64_t>(in, 1 << 20);
  call.datatype = PickText(in, {"f32"});
  call.algorithm = PickText(in, {"RING", "TREE"});
  call.protocol = PickText(in, {"LL", "SIMPLE"});
  call.nranks = PickNumber<int64_t>(in, 4);
  call.scope_path = PickText(in, {"train/step", ""});
  for (int i = in.ConsumeIntegralInRange(1, 4); i > 0 && in.remaining_bytes() > 0; --i) {
    CollectiveRecordUntrusted r = call;
    r.rank = in.ConsumeBool() ? i - 1 : PickNumber<int64_t>(in, 4);
    r.pid = in.ConsumeBool() ? 1000 + i : PickNumber<int64_t>(in, 4);
    r.host = PickText(in, {"node01", "node02", "node03"});
    if (in.ConsumeBool()) r.op = PickText(in, {"all_reduce", "broadcast"});
    if (in.ConsumeBool()) r.nranks = PickNumber<int64_t>(in, 4);
    r.start_ns = PickNumber<int64_t>(in, 1'000'000);
    // Wrapping on purpose (unsigned): a hostile end may come before its start.
    const uint64_t length = PickNumber<uint64_t>(in, 1'000'000);
    r.end_ns = in.ConsumeBool() ? static_cast<int64_t>(static_cast<uint64_t>(r.start_ns) + length)
                                : PickNumber<int64_t>(in, 2'000'000);
    out.push_back(std::move(r));
  }
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
  while (in.remaining_bytes() > 0 && records.size() < 512) ReadCall(in, records);
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
