#include "view/jobs/collective_tree.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/jobs/match.h"
#include "view/jobs/plugin_records.h"
#include "view/jobs/validate.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"

namespace protond::view {
namespace {

// What matching knows of one rank's part in a judged call.
struct JudgedPart {
  int64_t wait_ns = 0;
  int64_t transfer_ns = 0;
};

// (communicator, seq, pid): the parts of the calls that every rank reported.
using JudgedParts = std::map<std::tuple<uint64_t, uint64_t, int64_t>, JudgedPart>;

JudgedParts JudgedPartsOf(const std::vector<CollectiveRecord>& records) {
  JudgedParts parts;
  for (const CommunicatorCalls& comm : MatchCollectives(records, {}).communicators) {
    for (const MatchedCall& call : comm.calls) {
      if (!call.judged()) continue;
      for (const Arrival& a : call.arrivals) {
        parts[{call.comm_id, call.seq, a.process.pid}] = {a.wait_ns, call.transfer_ns};
      }
    }
  }
  return parts;
}

// Each scope's path of names from ROOT ("" for ROOT) to its node index; the first node of a path
// wins, and GPU nodes (kernels, copies) are no scope.
absl::flat_hash_map<std::string, int> ScopeIndexes(const v1::Tree& tree, const TreeShape& shape) {
  std::vector<std::string> paths(tree.nodes_size());
  absl::flat_hash_map<std::string, int> indexes;
  indexes.emplace("", 0);
  for (int i = 1; i < tree.nodes_size(); ++i) {
    const std::string& parent = paths[shape.parent[i]];
    paths[i] =
        parent.empty() ? tree.nodes(i).name() : absl::StrCat(parent, "/", tree.nodes(i).name());
    if (!NodeGpuTimeNs(tree.nodes(i)).has_value()) indexes.emplace(paths[i], i);
  }
  return indexes;
}

// One kind of call under one scope, summed over its calls.
struct KindTotals {
  uint64_t calls = 0;
  uint64_t bytes = 0;
  int64_t time_ns = 0;
  int64_t bandwidth_time_ns = 0;  // per call: its transfer time when judged, else its time
  uint64_t judged_calls = 0;
  int64_t wait_ns = 0;
  std::set<std::string> algorithms, protocols;

  void Add(const CollectiveRecord& call, int64_t call_time_ns, const JudgedPart* judged) {
    ++calls;
    if (__builtin_add_overflow(bytes, call.bytes, &bytes)) bytes = UINT64_MAX;
    AddSaturating(time_ns, call_time_ns);
    AddSaturating(bandwidth_time_ns, judged != nullptr ? judged->transfer_ns : call_time_ns);
    algorithms.insert(call.algorithm);
    protocols.insert(call.protocol);
    if (judged == nullptr) return;
    ++judged_calls;
    AddSaturating(wait_ns, judged->wait_ns);
  }
};

// (scope index, op, communicator size).
using KindKey = std::tuple<int, CollectiveOp, int>;

// What the calls add to the tree: the kinds and the notes.
struct FoldedCalls {
  std::map<KindKey, KindTotals> kinds;
  uint64_t host_timed = 0;
  uint64_t unknown_scope = 0;
  std::string first_unknown_scope;
};

void FoldCall(const CollectiveRecord& call, const JudgedParts& judged,
              const absl::flat_hash_map<std::string, int>& scopes, FoldedCalls& folded) {
  int scope = 0;
  if (auto found = scopes.find(call.scope_path); found != scopes.end()) {
    scope = found->second;
  } else if (folded.unknown_scope++ == 0) {
    folded.first_unknown_scope = call.scope_path;
  }
  int64_t time_ns = call.end_ns - call.start_ns;
  if (call.gpu.has_value() && call.gpu->end_ns >= call.gpu->start_ns) {
    time_ns = call.gpu->end_ns - call.gpu->start_ns;
  } else {
    ++folded.host_timed;
  }
  const auto part = judged.find({call.comm_id, call.seq, call.pid});
  folded.kinds[{scope, call.op, call.nranks}].Add(call, time_ns,
                                                  part != judged.end() ? &part->second : nullptr);
}

void AddMetric(v1::TreeNode* node, const char* name, v1::Metric::Aggregation aggregation,
               int64_t value) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(aggregation);
  metric->set_int_value(value);
}

std::string KindName(CollectiveOp op, int nranks, const KindTotals& totals) {
  std::string name = absl::StrCat(std::string(CollectiveOpName(op)), " [nccl, ", nranks,
                                  nranks == 1 ? " rank" : " ranks");
  if (totals.algorithms.size() == 1 && totals.protocols.size() == 1 &&
      !totals.algorithms.begin()->empty()) {
    absl::StrAppend(&name, ", ", *totals.algorithms.begin(), "/", *totals.protocols.begin());
  }
  return absl::StrCat(name, "]");
}

void AddKindNode(const KindKey& key, const KindTotals& totals, uint64_t id, v1::Tree& tree) {
  const auto [scope, op, nranks] = key;
  v1::TreeNode* node = tree.add_nodes();
  node->set_id(static_cast<uint32_t>(id));
  node->set_parent_id(tree.nodes(scope).id());
  node->set_name(KindName(op, nranks, totals));
  const int64_t bytes = totals.bytes > INT64_MAX ? INT64_MAX : static_cast<int64_t>(totals.bytes);
  AddMetric(node, kNcclCallsMetric, v1::Metric::EXCLUSIVE, static_cast<int64_t>(totals.calls));
  AddMetric(node, kNcclBytesMetric, v1::Metric::EXCLUSIVE, bytes);
  AddMetric(node, kNcclTimeMetric, v1::Metric::EXCLUSIVE, totals.time_ns);
  if (totals.bytes > 0 && totals.bandwidth_time_ns > 0) {
    v1::Metric* metric = node->add_metrics();
    metric->set_name(kNcclBusBandwidthMetric);
    metric->set_aggregation(v1::Metric::PROPERTY);
    metric->set_double_value(BusBandwidthGbps(op, nranks, totals.bytes, totals.bandwidth_time_ns));
  }
  if (totals.judged_calls > 0) {
    AddMetric(node, kNcclWaitMetric, v1::Metric::EXCLUSIVE, totals.wait_ns);
  }
}

void AddNotes(const FoldedCalls& folded, uint64_t calls, uint64_t rejected, v1::Tree& tree) {
  if (rejected > 0) {
    tree.add_notes(absl::StrCat(
        rejected, " NCCL collective calls left out as invalid: ", "protonctl job says why"));
  }
  if (folded.unknown_scope > 0) {
    tree.add_notes(absl::StrCat(folded.unknown_scope,
                                " NCCL collective calls name a scope that is not in the tree ('",
                                folded.first_unknown_scope, "'): shown under ROOT"));
  }
  if (calls > 0 && folded.host_timed == calls) {
    tree.add_notes(absl::StrCat(kNcclTimeMetric, ": the host's time of all ", calls,
                                " NCCL collective calls (their kernels are not known)"));
  } else if (folded.host_timed > 0) {
    tree.add_notes(absl::StrCat(kNcclTimeMetric, ": ", folded.host_timed, " of ", calls,
                                " NCCL collective calls timed on the host (their kernel is not "
                                "known), the others by their kernel on the GPU"));
  }
}

}  // namespace

absl::StatusOr<v1::Tree> AddCollectiveNodes(v1::Tree tree, const v1::Collectives& collectives,
                                            const std::optional<std::set<int64_t>>& shown_pids) {
  if (collectives.events_size() == 0) return tree;
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  const PluginSession session{nullptr, &collectives, ""};
  const ValidatedCollectives valid =
      ValidateCollectives(CollectivesFromPlugin({&session, 1}, ""), "");
  const JudgedParts judged = JudgedPartsOf(valid.records);
  const absl::flat_hash_map<std::string, int> scopes = ScopeIndexes(tree, shape);
  FoldedCalls folded;
  uint64_t calls = 0;
  for (const CollectiveRecord& call : valid.records) {
    if (shown_pids.has_value() && !shown_pids->contains(call.pid)) continue;
    ++calls;
    FoldCall(call, judged, scopes, folded);
  }
  uint64_t next_id = 0;
  for (const v1::TreeNode& node : tree.nodes())
    next_id = std::max(next_id, uint64_t{node.id()} + 1);
  if (next_id + folded.kinds.size() > UINT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tree's node ids reach ", next_id - 1,
                     ": no id is left for its NCCL collective calls' nodes"));
  }
  for (const auto& [key, totals] : folded.kinds) AddKindNode(key, totals, next_id++, tree);
  AddNotes(folded, calls, valid.stats.TotalRejected(), tree);
  return tree;
}

absl::StatusOr<v1::Tree> AddSessionCollectiveNodes(const v1::Session& session,
                                                   const std::string& rank, v1::Tree tree,
                                                   const v1::Collectives& collectives) {
  std::optional<std::set<int64_t>> pids;
  if (!rank.empty()) {
    pids.emplace();
    for (const v1::SessionProcess& process : session.processes()) {
      if (process.job().rank() == rank) pids->insert(process.pid());
    }
  }
  return AddCollectiveNodes(std::move(tree), collectives, pids);
}

}  // namespace protond::view
