// One session's aggregated call tree: nodes are interned scope paths under ROOT, and each
// process's contribution to a node is kept apart (count, duration sum/min/max, user metrics with
// Proton's semantics). The tree tracks what changed since the last commit and hands it out as
// absolute store rows. Used by the ingest thread only.
#ifndef PROTOND_DAEMON_AGGREGATE_CALL_TREE_H_
#define PROTOND_DAEMON_AGGREGATE_CALL_TREE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/store/store.h"

namespace protond::aggregate {

inline constexpr uint32_t kRootNodeId = 0;

// A metric name as given, split into Proton's meaning: "flops (exc)" is the exclusive metric
// "flops", "(pty)" a property, "(inc)" or no suffix a summed one. Unit parentheses stay.
struct MetricName {
  std::string name;
  store::MetricAggregation aggregation;
};
MetricName ParseMetricName(std::string_view raw);

// What PC samples of one CUPTI stall reason ("smsp__pcsamp_warps_issue_stalled_long_scoreboard")
// count for, in Proton's metrics: every sample in num_samples and stalled_<reason>
// ("stalled_long_scoreboard"), and in num_stalled_samples unless the warp was selected to issue.
// The "..._not_issued" reasons count the subset of those samples taken in cycles when nothing
// issued; they and names outside the stall family count for nothing (`counted` false).
struct StallReason {
  bool counted = false;
  bool stalled = false;
  std::string metric;  // "stalled_long_scoreboard"
};
StallReason ParseStallReason(std::string_view cupti_name);

struct NodeStats {
  uint64_t count = 0;
  uint64_t duration_ns_sum = 0;
  uint64_t duration_ns_min = 0;
  uint64_t duration_ns_max = 0;
};

class CallTree {
 public:
  explicit CallTree(uint64_t session_id);

  // The node `name` under `parent`, created (of `kind`) if new; nullopt when a new one would be
  // deeper than kMaxTreeDepth levels below ROOT (common/tree/tree_depth.h): it is not made.
  // Instructions of different cubins (`cubin_crc`, 0 when not known) are different nodes of the
  // same name.
  std::optional<uint32_t> Child(uint32_t parent, std::string_view name,
                                store::NodeKind kind = store::NodeKind::kFrame,
                                uint64_t cubin_crc = 0);

  // One completed scope instance of `process_id` at `node`.
  void AddScope(uint32_t node, uint64_t process_id, uint64_t duration_ns);

  // One execution of GPU work (kernel, memcpy, memset) of `process_id` at `node`, recorded as
  // Proton does: counted, its GPU time summed into "time (ns)", its device as "device_id", and
  // its bytes (memcpy, memset) summed into "bytes". An error means a user metric of the same name
  // has another type; the count is kept.
  absl::Status AddGpuActivity(uint32_t node, uint64_t process_id, uint64_t duration_ns,
                              uint32_t device_id, uint64_t bytes);

  // Adds (or, for properties, sets) a metric value. A name keeps the type it was first given in
  // the session; a different type is refused with Proton's message. An int64 sum that would pass
  // INT64_MAX or INT64_MIN stays at the limit, where Proton's wraps around to the other sign, and
  // the error says so in the same words each time (the session's problems keep one copy).
  absl::Status AddMetric(uint32_t node, uint64_t process_id, const MetricName& name, bool is_double,
                         uint64_t value_bits);

  // Adds a vector metric's elements (int64 or double bits) element-wise, as Proton sums a list or
  // tensor metric (properties: sets them). A name keeps its type (a vector of int64 or of double,
  // never a scalar) and its element count in the session; another is refused in Proton's words
  // and the value is left out. int64 elements saturate as AddMetric's sums do.
  absl::Status AddVectorMetric(uint32_t node, uint64_t process_id, const MetricName& name,
                               bool is_double, const std::vector<uint64_t>& value_bits);

  // `samples` PC samples with `reason` at `node` (an instruction under its source line, under a
  // kernel), as Proton counts them (ParseStallReason).
  absl::Status AddPcSamples(uint32_t node, uint64_t process_id, const StallReason& reason,
                            uint64_t samples);

  // `count` executions of a scope inside a kernel (intra-kernel instrumentation, one per warp and
  // pass) at `node`, with Proton's metrics: "cycles" (summed over them), "normalized_cycles" and
  // the device as "device_id".
  absl::Status AddKernelScope(uint32_t node, uint64_t process_id, uint64_t count, uint64_t cycles,
                              double normalized_cycles, uint32_t device_id);

  // Appends the rows of everything changed since the last call to `batch`, as absolute values.
  void TakeChangedRows(store::Batch& batch);

  // Adds another session's stored tree to this one (an always-on period merging its windows,
  // docs/always-on.md "Retention"): frames are the same when their path of names (and kinds and
  // cubins) from ROOT is; per process, counts and durations are added, min and max taken over the
  // trees where the frame ran; metrics are added as AddMetric adds them (a property: the later
  // tree's). Every row is added that can be; the first error (a metric of another type than this
  // tree's, an int64 sum at its limit) is returned after the rest. Marks what it adds changed.
  absl::Status Add(const store::StoredTree& other);

  // Rebuilds the tree from the store (after a daemon restart); nothing is marked changed. Stored
  // nodes load whatever their depth (a store may predate the limit).
  void Load(const store::StoredTree& stored);

  size_t node_count() const { return nodes_.size(); }

 private:
  struct Node {
    uint32_t parent;
    std::string name;
    store::NodeKind kind = store::NodeKind::kFrame;
    uint64_t cubin_crc = 0;
    uint32_t depth = 0;  // levels below ROOT
  };
  struct ProcessPart {
    std::vector<NodeStats> stats;  // indexed by node id
    std::vector<uint32_t> changed_nodes;
    std::vector<bool> changed;
  };
  struct MetricKey {
    uint32_t node;
    uint64_t process_id;
    uint32_t metric;  // index into metric_names_
    bool operator==(const MetricKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const MetricKey& k) {
      return H::combine(std::move(h), k.node, k.process_id, k.metric);
    }
  };
  struct MetricSlot {
    store::MetricRow row;
    bool changed = false;
  };
  struct MetricInfo {
    MetricName name;
    bool is_double;
    size_t vector_count = 0;  // a vector metric's elements; 0 for a scalar
  };

  // Child, whatever the depth.
  uint32_t Intern(uint32_t parent, std::string_view name, store::NodeKind kind, uint64_t cubin_crc);
  ProcessPart& Part(uint64_t process_id);
  // The process's stats at `node`, marked changed.
  NodeStats& ChangeStats(uint32_t node, uint64_t process_id);
  // The metric's index; an error (Proton's words) when it was first given another type or, for a
  // vector (`vector_count` > 0), another element count.
  absl::StatusOr<uint32_t> InternMetric(const MetricName& name, bool is_double,
                                        size_t vector_count);
  // The metric's slot at (node, process), made on first use and marked changed.
  store::MetricRow& ChangeMetric(uint32_t node, uint64_t process_id, uint32_t metric);

  uint64_t session_id_;
  std::vector<Node> nodes_;  // index = node id; 0 is ROOT
  absl::flat_hash_map<std::tuple<uint32_t, std::string, uint64_t>, uint32_t> children_;
  size_t first_unsaved_node_ = 1;
  absl::flat_hash_map<uint64_t, ProcessPart> parts_;
  std::vector<MetricInfo> metric_names_;
  absl::flat_hash_map<std::string, uint32_t> metric_ids_;  // by name without suffix
  absl::flat_hash_map<MetricKey, MetricSlot> metrics_;
  std::vector<MetricKey> changed_metrics_;
};

}  // namespace protond::aggregate

#endif  // PROTOND_DAEMON_AGGREGATE_CALL_TREE_H_
