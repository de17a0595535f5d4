#include "view/tree/top_collectives.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "view/jobs/collective.h"
#include "view/jobs/nccl_kernel_name.h"
#include "view/render/metric_values.h"
#include "view/render/text_table.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {
    {"TIME (ms)", true},   {"TIME %", true},    {"CALLS", true},      {"AVG (us)", true},
    {"COLLECTIVE", false}, {"DATATYPE", false}, {"ALGORITHM", false}, {"PROTOCOL", false}};

// What the kernel names tell apart: (collective, datatype, algorithm, protocol).
using CallKind = std::tuple<std::string, std::string, std::string, std::string>;

struct Calls {
  CallKind kind;
  double time_ns = 0;
  uint64_t count = 0;
};

// protond's spelling where it knows the collective ("all_reduce"); SendRecv and Generic as NCCL
// names them, in the same case.
std::string CollectiveName(const NcclKernel& kernel) {
  if (kernel.kind == NcclKernel::Kind::kPointToPoint) return "send_recv";
  if (kernel.kind == NcclKernel::Kind::kGeneric) return "generic";
  if (const std::optional<CollectiveOp> op = ParseCollectiveOp(kernel.op)) {
    return std::string(CollectiveOpName(*op));
  }
  return absl::AsciiStrToLower(kernel.op);
}

std::string OrDash(const std::string& text) { return text.empty() ? "-" : text; }

}  // namespace

absl::StatusOr<std::string> RenderTopCollectives(const v1::Tree& profile, int limit) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(profile));
  const v1::Tree tree = DropHiddenFrames(profile, shape);  // as in the tree and in top
  std::map<CallKind, Calls> by_kind;
  double all_gpu_ns = 0;
  for (const v1::TreeNode& node : tree.nodes()) {
    const std::optional<double> time_ns = NodeGpuTimeNs(node);
    if (!time_ns.has_value()) continue;
    all_gpu_ns += *time_ns;
    const std::optional<NcclKernel> kernel = ParseNcclKernelName(node.name());
    if (!kernel.has_value()) continue;
    const CallKind kind{CollectiveName(*kernel), OrDash(kernel->datatype),
                        OrDash(kernel->algorithm), OrDash(kernel->protocol)};
    Calls& calls = by_kind[kind];
    calls.kind = kind;
    calls.time_ns += *time_ns;
    calls.count += node.count();
  }
  if (by_kind.empty()) return std::string("no NCCL collective kernels in this profile\n");
  std::vector<Calls> sorted;
  for (auto& [kind, calls] : by_kind) sorted.push_back(calls);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Calls& a, const Calls& b) { return a.time_ns > b.time_ns; });
  if (limit > 0 && sorted.size() > static_cast<size_t>(limit)) sorted.resize(limit);
  std::vector<std::vector<std::string>> rows;
  for (const Calls& calls : sorted) {
    const auto& [collective, datatype, algorithm, protocol] = calls.kind;
    rows.push_back(
        {absl::StrFormat("%.3f", calls.time_ns / 1e6),
         absl::StrFormat("%.1f", 100 * calls.time_ns / all_gpu_ns), absl::StrCat(calls.count),
         calls.count > 0 ? absl::StrFormat("%.3f", calls.time_ns / 1e3 / calls.count) : "-",
         collective, datatype, algorithm, protocol});
  }
  return absl::StrCat(RenderTextTable(kColumns, rows),
                      "bytes and bus bandwidth: not known from kernel names (NCCL's profiler "
                      "plugin will give them); which rank the others wait for: protonctl job "
                      "on a trace session\n");
}

}  // namespace protond::view
