#include "view/jobs/validate.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_format.h"
#include "common/text/printable_text.h"
#include "common/text/utf8.h"

namespace protond::view {
namespace {

constexpr std::array<std::string_view, kCollectiveProblemKinds> kProblemNames = {
    "empty_op",   "unknown_op",   "bad_nranks",     "rank_out_of_range", "bad_pid",
    "bad_times",  "absurd_bytes", "bad_text",       "other_job",         "nranks_mismatch",
    "rank_moved", "op_mismatch",  "duplicate_call",
};

struct Rejection {
  CollectiveProblem problem;
  std::string message;
};

// Debian's Abseil has a string_view of its own.
absl::string_view Absl(std::string_view text) { return {text.data(), text.size()}; }

// A string's text for a message: bounded, with its control characters made visible and the
// bytes that are not UTF-8 written as "\xNN", so that the message itself is printable UTF-8.
std::string Quoted(std::string_view text) {
  constexpr size_t kShown = 40;
  absl::string_view rest = Absl(text.substr(0, kShown));
  std::string shown = "\"";
  for (;;) {
    const size_t bad = text::FindInvalidUtf8(rest);
    shown += text::PrintableText(rest.substr(0, bad));
    if (bad == absl::string_view::npos) break;
    shown += absl::StrFormat("\\x%02x", static_cast<unsigned char>(rest[bad]));
    rest.remove_prefix(bad + 1);
  }
  shown += text.size() > kShown ? "\"..." : "\"";
  return shown;
}

std::optional<Rejection> CheckText(std::string_view field, std::string_view value,
                                   size_t max_bytes) {
  if (value.size() > max_bytes) {
    return Rejection{CollectiveProblem::kBadText, absl::StrFormat("%s is %d bytes, more than %d",
                                                                  field, value.size(), max_bytes)};
  }
  if (text::FindInvalidUtf8(Absl(value)) != absl::string_view::npos) {
    return Rejection{CollectiveProblem::kBadText,
                     absl::StrFormat("%s %s is not UTF-8", field, Quoted(value))};
  }
  return std::nullopt;
}

std::optional<Rejection> CheckFields(const CollectiveRecordUntrusted& r, std::string_view job) {
  using P = CollectiveProblem;
  const std::pair<std::string_view, const std::string*> names[] = {{"job", &r.job},
                                                                   {"host", &r.host},
                                                                   {"datatype", &r.datatype},
                                                                   {"algorithm", &r.algorithm},
                                                                   {"protocol", &r.protocol}};
  for (const auto& [field, value] : names) {
    if (auto bad = CheckText(field, *value, kMaxNameBytes)) return bad;
  }
  if (auto bad = CheckText("scope_path", r.scope_path, kMaxScopePathBytes)) return bad;
  if (!job.empty() && r.job != job) {
    return Rejection{P::kOtherJob, absl::StrFormat("job %s is not %s", Quoted(r.job), Quoted(job))};
  }
  if (r.op.empty()) return Rejection{P::kEmptyOp, "op is empty"};
  if (!ParseCollectiveOp(r.op)) {
    return Rejection{P::kUnknownOp, absl::StrFormat("op %s is no known collective", Quoted(r.op))};
  }
  if (r.nranks < 1 || r.nranks > kMaxCommunicatorRanks) {
    return Rejection{P::kBadRanks,
                     absl::StrFormat("nranks %d is not in 1..%d", r.nranks, kMaxCommunicatorRanks)};
  }
  if (r.rank < 0 || r.rank >= r.nranks) {
    return Rejection{P::kRankOutOfRange, absl::StrFormat("rank %d is not in 0..%d (nranks %d)",
                                                         r.rank, r.nranks - 1, r.nranks)};
  }
  if (r.pid <= 0) return Rejection{P::kBadPid, absl::StrFormat("pid %d is not positive", r.pid)};
  if (r.start_ns < 0 || r.end_ns < r.start_ns) {
    return Rejection{
        P::kBadTimes,
        absl::StrFormat("start_ns %d and end_ns %d: %s", r.start_ns, r.end_ns,
                        r.start_ns < 0 ? "start is negative" : "it ends before it starts")};
  }
  if (r.gpu.has_value() && (r.gpu->start_ns < 0 || r.gpu->end_ns < r.gpu->start_ns)) {
    return Rejection{
        P::kBadTimes,
        absl::StrFormat("gpu start_ns %d and end_ns %d: %s", r.gpu->start_ns, r.gpu->end_ns,
                        r.gpu->start_ns < 0 ? "start is negative" : "it ends before it starts")};
  }
  if (r.bytes > kMaxCollectiveBytes) {
    return Rejection{P::kAbsurdBytes,
                     absl::StrFormat("bytes %d is more than %d", r.bytes, kMaxCollectiveBytes)};
  }
  return std::nullopt;
}

CollectiveRecord Accepted(const CollectiveRecordUntrusted& r) {
  return CollectiveRecord{.job = r.job,
                          .host = r.host,
                          .rank = static_cast<int>(r.rank),
                          .pid = r.pid,
                          .comm_id = r.comm_id,
                          .seq = r.seq,
                          .op = *ParseCollectiveOp(r.op),
                          .bytes = r.bytes,
                          .datatype = r.datatype,
                          .algorithm = r.algorithm,
                          .protocol = r.protocol,
                          .nranks = static_cast<int>(r.nranks),
                          .start_ns = r.start_ns,
                          .end_ns = r.end_ns,
                          .scope_path = r.scope_path,
                          .gpu = r.gpu};
}

// What the records accepted so far fix about the ones after them.
class ConsistencyCheck {
 public:
  // Checks `r` against the records accepted before it; only an accepted record is remembered.
  std::optional<Rejection> Check(const CollectiveRecord& r) {
    std::optional<Rejection> bad = Compare(r);
    if (!bad) {
      nranks_.emplace(r.comm_id, r.nranks);
      holders_.emplace(std::pair(r.comm_id, r.rank), r.process());
      ops_.emplace(std::pair(r.comm_id, r.seq), r.op);
      calls_.emplace(r.comm_id, r.seq, r.rank);
    }
    return bad;
  }

 private:
  std::optional<Rejection> Compare(const CollectiveRecord& r) const {
    using P = CollectiveProblem;
    if (auto it = nranks_.find(r.comm_id); it != nranks_.end() && it->second != r.nranks) {
      return Rejection{P::kRanksMismatch,
                       absl::StrFormat("nranks %d differs from communicator %#x's %d", r.nranks,
                                       r.comm_id, it->second)};
    }
    if (auto it = holders_.find({r.comm_id, r.rank});
        it != holders_.end() && it->second != r.process()) {
      return Rejection{
          P::kRankMoved,
          absl::StrFormat("rank %d of communicator %#x is pid %d on %s, was pid %d on %s", r.rank,
                          r.comm_id, r.pid, Quoted(r.host), it->second.pid,
                          Quoted(it->second.host))};
    }
    if (auto it = ops_.find({r.comm_id, r.seq}); it != ops_.end() && it->second != r.op) {
      return Rejection{
          P::kOpMismatch,
          absl::StrFormat("op %s differs from %s of call %d of communicator %#x",
                          CollectiveOpName(r.op), CollectiveOpName(it->second), r.seq, r.comm_id)};
    }
    if (calls_.contains({r.comm_id, r.seq, r.rank})) {
      return Rejection{P::kDuplicateCall,
                       absl::StrFormat("call %d of communicator %#x from rank %d came before",
                                       r.seq, r.comm_id, r.rank)};
    }
    return std::nullopt;
  }

  std::map<uint64_t, int> nranks_;
  std::map<std::pair<uint64_t, int>, ProcessId> holders_;
  std::map<std::pair<uint64_t, uint64_t>, CollectiveOp> ops_;
  std::set<std::tuple<uint64_t, uint64_t, int>> calls_;
};

}  // namespace

std::string_view CollectiveProblemName(CollectiveProblem problem) {
  const size_t i = static_cast<size_t>(problem);
  return i < kProblemNames.size() ? kProblemNames[i] : "unknown";
}

uint64_t ValidationStats::TotalRejected() const {
  uint64_t total = 0;
  for (uint64_t count : rejected) total += count;
  return total;
}

ValidatedCollectives ValidateCollectives(const std::vector<CollectiveRecordUntrusted>& records,
                                         std::string_view job) {
  ValidatedCollectives out;
  ConsistencyCheck consistency;
  for (size_t i = 0; i < records.size(); ++i) {
    std::optional<Rejection> bad = CheckFields(records[i], job);
    std::optional<CollectiveRecord> record;
    if (!bad) {
      record = Accepted(records[i]);
      bad = consistency.Check(*record);
    }
    if (!bad) {
      out.records.push_back(std::move(*record));
      ++out.stats.accepted;
      continue;
    }
    ++out.stats.rejected[static_cast<size_t>(bad->problem)];
    if (out.stats.messages.size() < kMaxProblemMessages) {
      out.stats.messages.push_back(absl::StrFormat(
          "record %d: %s: %s", i, CollectiveProblemName(bad->problem), bad->message));
    }
  }
  return out;
}

}  // namespace protond::view
