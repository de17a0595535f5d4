#include "daemon/aggregate/call_tree.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/tree/tree_depth.h"

namespace protond::aggregate {
namespace {

using store::MetricAggregation;

// A metric type as Proton's messages name it.
const char* TypeName(bool is_double, bool is_vector) {
  if (is_vector) return is_double ? "std::vector<double>" : "std::vector<int64_t>";
  return is_double ? "double" : "int64_t";
}

// `*sum += value`, stopping at INT64_MAX or INT64_MIN (no undefined overflow, whatever a process
// sends); false when it stopped there.
bool AddSaturating(int64_t* sum, int64_t value) {
  if (!__builtin_add_overflow(*sum, value, sum)) return true;
  *sum = value > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return false;
}

}  // namespace

MetricName ParseMetricName(std::string_view raw) {
  struct Suffix {
    std::string_view text;
    MetricAggregation aggregation;
  };
  for (const Suffix& s : {Suffix{"(exc)", MetricAggregation::kExclusive},
                          Suffix{"(pty)", MetricAggregation::kProperty},
                          Suffix{"(inc)", MetricAggregation::kInclusive}}) {
    if (raw.ends_with(s.text)) {
      std::string_view name = raw.substr(0, raw.size() - s.text.size());
      while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
      return {std::string(name), s.aggregation};
    }
  }
  return {std::string(raw), MetricAggregation::kInclusive};
}

StallReason ParseStallReason(std::string_view cupti_name) {
  constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
  if (!cupti_name.starts_with(kPrefix) || cupti_name.ends_with("_not_issued")) return {};
  const std::string_view reason = cupti_name.substr(kPrefix.size());
  return {true, reason != "selected", "stalled_" + std::string(reason)};
}

CallTree::CallTree(uint64_t session_id) : session_id_(session_id) {
  nodes_.push_back({kRootNodeId, "ROOT"});
}

std::optional<uint32_t> CallTree::Child(uint32_t parent, std::string_view name,
                                        store::NodeKind kind, uint64_t cubin_crc) {
  auto known = children_.find(std::make_tuple(parent, std::string(name), cubin_crc));
  if (known != children_.end()) return known->second;
  if (nodes_[parent].depth >= static_cast<uint32_t>(kMaxTreeDepth)) return std::nullopt;
  return Intern(parent, name, kind, cubin_crc);
}

uint32_t CallTree::Intern(uint32_t parent, std::string_view name, store::NodeKind kind,
                          uint64_t cubin_crc) {
  auto [it, inserted] = children_.try_emplace({parent, std::string(name), cubin_crc},
                                              static_cast<uint32_t>(nodes_.size()));
  if (!inserted) return it->second;
  // A damaged store may name a parent that does not exist: nothing goes under its children.
  const uint32_t depth = parent < nodes_.size() ? nodes_[parent].depth + 1 : kMaxTreeDepth;
  nodes_.push_back({parent, std::string(name), kind, cubin_crc, depth});
  return it->second;
}

CallTree::ProcessPart& CallTree::Part(uint64_t process_id) { return parts_[process_id]; }

NodeStats& CallTree::ChangeStats(uint32_t node, uint64_t process_id) {
  ProcessPart& part = Part(process_id);
  if (node >= part.stats.size()) {
    part.stats.resize(nodes_.size());
    part.changed.resize(nodes_.size(), false);
  }
  if (!part.changed[node]) {
    part.changed[node] = true;
    part.changed_nodes.push_back(node);
  }
  return part.stats[node];
}

void CallTree::AddScope(uint32_t node, uint64_t process_id, uint64_t duration_ns) {
  NodeStats& s = ChangeStats(node, process_id);
  s.duration_ns_min = s.count == 0 ? duration_ns : std::min(s.duration_ns_min, duration_ns);
  s.duration_ns_max = std::max(s.duration_ns_max, duration_ns);
  s.duration_ns_sum += duration_ns;
  s.count++;
}

absl::Status CallTree::AddGpuActivity(uint32_t node, uint64_t process_id, uint64_t duration_ns,
                                      uint32_t device_id, uint64_t bytes) {
  // Short names: no allocation for the MetricName temporaries.
  ChangeStats(node, process_id).count++;
  absl::Status status =
      AddMetric(node, process_id, {"time (ns)", MetricAggregation::kInclusive}, false, duration_ns);
  status.Update(
      AddMetric(node, process_id, {"device_id", MetricAggregation::kProperty}, false, device_id));
  if (bytes != 0) {
    status.Update(
        AddMetric(node, process_id, {"bytes", MetricAggregation::kInclusive}, false, bytes));
  }
  return status;
}

absl::StatusOr<uint32_t> CallTree::InternMetric(const MetricName& name, bool is_double,
                                                size_t vector_count) {
  auto it = metric_ids_.find(name.name);
  if (it == metric_ids_.end()) {
    it = metric_ids_.emplace(name.name, static_cast<uint32_t>(metric_names_.size())).first;
    metric_names_.push_back({name, is_double, vector_count});
  }
  const uint32_t metric = it->second;
  const MetricInfo& info = metric_names_[metric];
  if (info.is_double != is_double || (info.vector_count == 0) != (vector_count == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Metric value type mismatch for valueId ", metric, " (", info.name.name,
                     "): current=", TypeName(info.is_double, info.vector_count != 0),
                     ", new=", TypeName(is_double, vector_count != 0)));
  }
  if (info.vector_count != vector_count) {  // Proton's words for a device metric of another size
    return absl::InvalidArgumentError(absl::StrCat("size mismatch for metric ", info.name.name,
                                                   ": current=", info.vector_count,
                                                   ", new=", vector_count));
  }
  return metric;
}

store::MetricRow& CallTree::ChangeMetric(uint32_t node, uint64_t process_id, uint32_t metric) {
  const MetricInfo& info = metric_names_[metric];
  auto [it, inserted] = metrics_.try_emplace(MetricKey{node, process_id, metric});
  store::MetricRow& row = it->second.row;
  if (inserted) {
    // A vector starts as zeros: 0 as an int64 and as a double.
    row = {session_id_,
           node,
           process_id,
           info.name.name,
           info.name.aggregation,
           info.is_double,
           0,
           0,
           std::vector<uint64_t>(info.vector_count, 0)};
  }
  if (!it->second.changed) {
    it->second.changed = true;
    changed_metrics_.push_back(it->first);
  }
  return row;
}

absl::Status CallTree::AddMetric(uint32_t node, uint64_t process_id, const MetricName& name,
                                 bool is_double, uint64_t value_bits) {
  ASSIGN_OR_RETURN(const uint32_t metric, InternMetric(name, is_double, 0));
  store::MetricRow& row = ChangeMetric(node, process_id, metric);
  const bool overwrite = row.aggregation == MetricAggregation::kProperty;
  if (is_double) {
    double value;
    std::memcpy(&value, &value_bits, sizeof(value));
    row.double_value = overwrite ? value : row.double_value + value;
  } else if (overwrite) {
    row.int_value = static_cast<int64_t>(value_bits);
  } else if (!AddSaturating(&row.int_value, static_cast<int64_t>(value_bits))) {
    return absl::OutOfRangeError(absl::StrCat(
        "int64_t metric '", row.name, "' of process ", process_id, " at node '", nodes_[node].name,
        "' passed the int64 limit; its sum stays at ", row.int_value));
  }
  return absl::OkStatus();
}

absl::Status CallTree::AddVectorMetric(uint32_t node, uint64_t process_id, const MetricName& name,
                                       bool is_double, const std::vector<uint64_t>& value_bits) {
  ASSIGN_OR_RETURN(const uint32_t metric, InternMetric(name, is_double, value_bits.size()));
  store::MetricRow& row = ChangeMetric(node, process_id, metric);
  if (row.aggregation == MetricAggregation::kProperty) {
    row.vector_bits = value_bits;
    return absl::OkStatus();
  }
  bool saturated = false;
  for (size_t i = 0; i < value_bits.size(); ++i) {
    uint64_t& sum_bits = row.vector_bits[i];
    if (is_double) {
      double sum, value;
      std::memcpy(&sum, &sum_bits, sizeof(sum));
      std::memcpy(&value, &value_bits[i], sizeof(value));
      sum += value;
      std::memcpy(&sum_bits, &sum, sizeof(sum));
    } else {
      int64_t sum = static_cast<int64_t>(sum_bits);
      saturated |= !AddSaturating(&sum, static_cast<int64_t>(value_bits[i]));
      sum_bits = static_cast<uint64_t>(sum);
    }
  }
  if (saturated) {
    return absl::OutOfRangeError(absl::StrCat(
        "int64_t vector metric '", row.name, "' of process ", process_id, " at node '",
        nodes_[node].name, "' passed the int64 limit; its elements stay at the limit"));
  }
  return absl::OkStatus();
}

absl::Status CallTree::AddPcSamples(uint32_t node, uint64_t process_id, const StallReason& reason,
                                    uint64_t samples) {
  if (!reason.counted) return absl::OkStatus();
  auto add = [&](const char* name) {
    return AddMetric(node, process_id, {name, MetricAggregation::kInclusive}, false, samples);
  };
  absl::Status status = add("num_samples");
  if (status.ok() && reason.stalled) status = add("num_stalled_samples");
  if (status.ok()) status = add(reason.metric.c_str());
  return status;
}

absl::Status CallTree::AddKernelScope(uint32_t node, uint64_t process_id, uint64_t count,
                                      uint64_t cycles, double normalized_cycles,
                                      uint32_t device_id) {
  ChangeStats(node, process_id).count += count;
  uint64_t normalized_bits;
  std::memcpy(&normalized_bits, &normalized_cycles, sizeof(normalized_bits));
  absl::Status status =
      AddMetric(node, process_id, {"cycles", MetricAggregation::kInclusive}, false, cycles);
  status.Update(AddMetric(node, process_id, {"normalized_cycles", MetricAggregation::kInclusive},
                          true, normalized_bits));
  status.Update(
      AddMetric(node, process_id, {"device_id", MetricAggregation::kProperty}, false, device_id));
  return status;
}

void CallTree::TakeChangedRows(store::Batch& batch) {
  for (size_t id = first_unsaved_node_; id < nodes_.size(); ++id) {
    batch.nodes.push_back({session_id_, static_cast<uint32_t>(id), nodes_[id].parent,
                           nodes_[id].name, nodes_[id].kind, nodes_[id].cubin_crc});
  }
  first_unsaved_node_ = nodes_.size();
  for (auto& [process_id, part] : parts_) {
    for (uint32_t node : part.changed_nodes) {
      const NodeStats& s = part.stats[node];
      batch.node_stats.push_back({session_id_, node, process_id, s.count, s.duration_ns_sum,
                                  s.duration_ns_min, s.duration_ns_max});
      part.changed[node] = false;
    }
    part.changed_nodes.clear();
  }
  for (const MetricKey& key : changed_metrics_) {
    MetricSlot& slot = metrics_[key];
    batch.metrics.push_back(slot.row);
    slot.changed = false;
  }
  changed_metrics_.clear();
}

absl::Status CallTree::Add(const store::StoredTree& other) {
  // Stored ids are dense, parents first: each node's parent is mapped before it.
  std::vector<uint32_t> ids(1, kRootNodeId);
  for (const store::NodeRow& row : other.nodes) {
    if (row.node_id >= ids.size()) ids.resize(row.node_id + 1, kRootNodeId);
    const uint32_t parent = row.parent_id < ids.size() ? ids[row.parent_id] : kRootNodeId;
    ids[row.node_id] = Intern(parent, row.name, row.kind, row.cubin_crc);
  }
  const auto id_of = [&ids](uint32_t stored) { return stored < ids.size() ? ids[stored] : 0; };
  for (const store::NodeStatsRow& row : other.node_stats) {
    NodeStats& s = ChangeStats(id_of(row.node_id), row.process_id);
    if (row.count != 0) {
      s.duration_ns_min =
          s.count == 0 ? row.duration_ns_min : std::min(s.duration_ns_min, row.duration_ns_min);
    }
    s.duration_ns_max = std::max(s.duration_ns_max, row.duration_ns_max);
    s.duration_ns_sum += row.duration_ns_sum;
    s.count += row.count;
  }
  absl::Status status;
  for (const store::MetricRow& row : other.metrics) {
    const MetricName name{row.name, row.aggregation};
    const uint32_t node = id_of(row.node_id);
    if (!row.vector_bits.empty()) {
      status.Update(AddVectorMetric(node, row.process_id, name, row.is_double, row.vector_bits));
      continue;
    }
    uint64_t bits = static_cast<uint64_t>(row.int_value);
    if (row.is_double) std::memcpy(&bits, &row.double_value, sizeof(bits));
    status.Update(AddMetric(node, row.process_id, name, row.is_double, bits));
  }
  return status;
}

void CallTree::Load(const store::StoredTree& stored) {
  for (const store::NodeRow& row : stored.nodes) {
    // Stored ids are dense and parents come first, so interning reproduces them.
    const uint32_t id = Intern(row.parent_id, row.name, row.kind, row.cubin_crc);
    if (id != row.node_id) nodes_[id].name = row.name;  // keeps going on a damaged store
  }
  first_unsaved_node_ = nodes_.size();
  for (const store::NodeStatsRow& row : stored.node_stats) {
    ProcessPart& part = Part(row.process_id);
    if (row.node_id >= part.stats.size()) {
      part.stats.resize(nodes_.size());
      part.changed.resize(nodes_.size(), false);
    }
    if (row.node_id < part.stats.size()) {
      part.stats[row.node_id] = {row.count, row.duration_ns_sum, row.duration_ns_min,
                                 row.duration_ns_max};
    }
  }
  for (const store::MetricRow& row : stored.metrics) {
    // A stored row of another type or count than the name's first (a store of an older daemon)
    // is kept apart from the sums: it stays in the store as it is.
    absl::StatusOr<uint32_t> metric =
        InternMetric({row.name, row.aggregation}, row.is_double, row.vector_bits.size());
    if (metric.ok()) metrics_[MetricKey{row.node_id, row.process_id, *metric}] = {row, false};
  }
}

}  // namespace protond::aggregate
