#include "view/jobs/kernel_order.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "view/jobs/validate.h"

namespace protond::view {
namespace {

// How many ranks the unequal-count problem names; all are counted.
constexpr size_t kMaxListedRanks = 8;

struct Kernel {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  const NcclKernel* name = nullptr;
};

// One process's NCCL collective kernels, and where it sits.
struct RankKernels {
  const TracedSession* session = nullptr;
  const v1::SessionProcess* process = nullptr;
  int64_t rank = -1;
  std::vector<Kernel> kernels;
};

struct LeftOut {
  uint64_t point_to_point = 0;  // SendRecv
  uint64_t generic = 0;         // ncclDevKernel_Generic and names we do not know
  uint64_t unknown_process = 0;
};

// RANK, else LOCAL_RANK, when it is a number a communicator can hold.
std::optional<int64_t> RankOf(const v1::Job& job) {
  for (const std::string* text : {&job.rank(), &job.local_rank()}) {
    int64_t rank = 0;
    if (absl::SimpleAtoi(*text, &rank) && rank >= 0 && rank < kMaxCommunicatorRanks) return rank;
  }
  return std::nullopt;
}

// The NCCL kernels of one session's trace, by process id; each kernel name parsed once.
void CollectSession(const TracedSession& traced,
                    std::map<uint32_t, std::optional<NcclKernel>>& names,
                    std::map<uint64_t, RankKernels>& by_process, LeftOut& left_out) {
  names.clear();
  for (const v1::TreeNode& node : traced.trace->nodes()) {
    names[node.id()] = ParseNcclKernelName(node.name());
  }
  std::map<uint64_t, const v1::SessionProcess*> processes;
  for (const v1::SessionProcess& process : traced.session->processes()) {
    processes[process.process_id()] = &process;
  }
  for (const v1::GpuEvent& event : traced.trace->gpu_events()) {
    if (event.kind() != v1::GpuEvent::KERNEL) continue;
    const auto name = names.find(event.node_id());
    if (name == names.end() || !name->second.has_value()) continue;
    if (name->second->kind == NcclKernel::Kind::kPointToPoint) {
      ++left_out.point_to_point;
      continue;
    }
    if (name->second->kind == NcclKernel::Kind::kGeneric) {
      ++left_out.generic;
      continue;
    }
    const auto process = processes.find(event.process_id());
    if (process == processes.end()) {
      ++left_out.unknown_process;
      continue;
    }
    RankKernels& rank = by_process[event.process_id()];
    rank.session = &traced;
    rank.process = process->second;
    rank.kernels.push_back({event.start_ns(), event.end_ns(), &*name->second});
  }
}

std::string ProcessName(const RankKernels& rank) {
  return absl::StrCat("pid ", rank.process->pid(), " of session ", rank.session->session->id(),
                      rank.session->host.empty() ? "" : " on ", rank.session->host);
}

void DescribeLeftOut(const LeftOut& left_out, std::vector<std::string>& problems) {
  if (left_out.point_to_point > 0) {
    problems.push_back(absl::StrCat(left_out.point_to_point,
                                    " SendRecv kernels left out: their pairs differ from rank to "
                                    "rank, so launch order cannot match them"));
  }
  if (left_out.generic > 0) {
    problems.push_back(absl::StrCat(left_out.generic,
                                    " NCCL kernels left out whose name does not say the collective "
                                    "(ncclDevKernel_Generic): the others are matched as if every "
                                    "rank ran these at the same places"));
  }
  if (left_out.unknown_process > 0) {
    problems.push_back(absl::StrCat(left_out.unknown_process,
                                    " NCCL kernels left out: their process is not the session's"));
  }
}

// When the ranks' counts differ, only the first `common` kernels of each are matched: the n-th
// kernel of one rank is then the n-th of the others only if the extra ones came last.
void DescribeUnequalCounts(const std::vector<RankKernels>& ranks, size_t common,
                           std::vector<std::string>& problems) {
  std::vector<std::string> counts;
  for (const RankKernels& rank : ranks) {
    if (counts.size() == kMaxListedRanks) {
      counts.push_back("...");
      break;
    }
    counts.push_back(absl::StrCat("rank ", rank.rank, ": ", rank.kernels.size()));
  }
  problems.push_back(
      absl::StrCat("the ranks ran different numbers of NCCL collective kernels (",
                   absl::StrJoin(counts, ", "), "): only the first ", common,
                   " of each are matched, which is right only if the others came after them"));
}

}  // namespace

LaunchOrderRecords CollectivesFromKernelOrder(std::span<const TracedSession> sessions,
                                              std::string_view job) {
  LaunchOrderRecords out;
  LeftOut left_out;
  std::vector<RankKernels> ranks;
  std::map<uint32_t, std::optional<NcclKernel>> names;
  for (const TracedSession& traced : sessions) {
    if (traced.session == nullptr || traced.trace == nullptr) continue;
    std::map<uint64_t, RankKernels> by_process;
    CollectSession(traced, names, by_process, left_out);
    // Kernels point into `names`, which the next session refills: their records are made now.
    for (auto& [id, rank] : by_process) {
      const std::optional<int64_t> number = RankOf(rank.process->job());
      if (!number.has_value()) {
        out.problems.push_back(absl::StrCat(ProcessName(rank), " ran ", rank.kernels.size(),
                                            " NCCL kernels but has no RANK or LOCAL_RANK: left "
                                            "out"));
        continue;
      }
      rank.rank = *number;
      std::stable_sort(rank.kernels.begin(), rank.kernels.end(),
                       [](const Kernel& a, const Kernel& b) {
                         return std::tie(a.start_ns, a.end_ns) < std::tie(b.start_ns, b.end_ns);
                       });
      for (size_t seq = 0; seq < rank.kernels.size(); ++seq) {
        const NcclKernel& name = *rank.kernels[seq].name;
        CollectiveRecordUntrusted record;
        record.job = std::string(job);
        record.host = traced.host;
        record.rank = rank.rank;
        record.pid = rank.process->pid();
        record.comm_id = kLaunchOrderCommId;
        record.seq = seq;
        record.op = name.op;
        record.datatype = name.datatype;
        record.algorithm = name.algorithm;
        record.protocol = name.protocol;
        // Past INT64_MAX a time reads negative, which validation refuses (bad_times).
        record.start_ns = static_cast<int64_t>(rank.kernels[seq].start_ns);
        record.end_ns = static_cast<int64_t>(rank.kernels[seq].end_ns);
        out.records.push_back(std::move(record));
      }
      ranks.push_back(std::move(rank));
    }
  }
  DescribeLeftOut(left_out, out.problems);
  std::sort(ranks.begin(), ranks.end(),
            [](const RankKernels& a, const RankKernels& b) { return a.rank < b.rank; });
  out.nranks = static_cast<int>(ranks.size());
  size_t common = ranks.empty() ? 0 : ranks.front().kernels.size();
  for (const RankKernels& rank : ranks) common = std::min(common, rank.kernels.size());
  const bool unequal = std::any_of(ranks.begin(), ranks.end(), [&](const RankKernels& rank) {
    return rank.kernels.size() != common;
  });
  if (unequal) DescribeUnequalCounts(ranks, common, out.problems);
  std::erase_if(out.records,
                [&](const CollectiveRecordUntrusted& record) { return record.seq >= common; });
  for (CollectiveRecordUntrusted& record : out.records) record.nranks = out.nranks;
  return out;
}

}  // namespace protond::view
