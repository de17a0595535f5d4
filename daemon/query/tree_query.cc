#include "daemon/query/tree_query.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"

namespace protond::query {
namespace {

struct MergedNode {
  store::NodeRow row;
  std::vector<uint32_t> children;  // in first-seen order
  uint64_t count = 0;
  uint64_t sum = 0;
  uint64_t min = 0;
  uint64_t max = 0;
  std::vector<store::MetricRow> metrics;  // one per name, merged
};

// Adds a vector row's elements to `merged`'s, as the scalars below add (int64 wraps around).
void AddElements(store::MetricRow& merged, const store::MetricRow& row) {
  for (size_t i = 0; i < row.vector_bits.size(); ++i) {
    uint64_t& sum = merged.vector_bits[i];
    if (row.is_double) {
      double a, b;
      std::memcpy(&a, &sum, sizeof(a));
      std::memcpy(&b, &row.vector_bits[i], sizeof(b));
      a += b;
      std::memcpy(&sum, &a, sizeof(a));
    } else {
      sum += row.vector_bits[i];
    }
  }
}

void MergeMetric(MergedNode& node, const store::MetricRow& row) {
  for (store::MetricRow& merged : node.metrics) {
    if (merged.name != row.name) continue;
    if (row.aggregation == store::MetricAggregation::kProperty) {
      merged = row;
    } else if (!merged.vector_bits.empty() || !row.vector_bits.empty()) {
      // A name has one type and length in a session (the call tree refuses others): a row that
      // differs anyway, from a damaged store, is left out rather than misread.
      if (merged.vector_bits.size() == row.vector_bits.size() &&
          merged.is_double == row.is_double) {
        AddElements(merged, row);
      }
    } else if (row.is_double) {
      merged.double_value += row.double_value;
    } else {
      merged.int_value = static_cast<int64_t>(static_cast<uint64_t>(merged.int_value) +
                                              static_cast<uint64_t>(row.int_value));
    }
    return;
  }
  node.metrics.push_back(row);
}

void SetVector(const store::MetricRow& row, v1::Metric& metric) {
  if (!row.is_double) {
    auto* values = metric.mutable_int_vector()->mutable_values();
    for (uint64_t bits : row.vector_bits) values->Add(static_cast<int64_t>(bits));
    return;
  }
  auto* values = metric.mutable_double_vector()->mutable_values();
  for (uint64_t bits : row.vector_bits) {
    double value;
    std::memcpy(&value, &bits, sizeof(value));
    values->Add(value);
  }
}

v1::Metric::Aggregation ToProto(store::MetricAggregation aggregation) {
  switch (aggregation) {
    case store::MetricAggregation::kExclusive:
      return v1::Metric::EXCLUSIVE;
    case store::MetricAggregation::kProperty:
      return v1::Metric::PROPERTY;
    case store::MetricAggregation::kInclusive:
      return v1::Metric::INCLUSIVE;
  }
  return v1::Metric::AGGREGATION_UNSPECIFIED;
}

void Emit(const MergedNode& node, v1::Tree& tree) {
  v1::TreeNode* out = tree.add_nodes();
  out->set_id(node.row.node_id);
  out->set_parent_id(node.row.parent_id);
  out->set_name(node.row.name);
  out->set_count(node.count);
  out->set_duration_ns_sum(node.sum);
  out->set_duration_ns_min(node.min);
  out->set_duration_ns_max(node.max);
  for (const store::MetricRow& row : node.metrics) {
    v1::Metric* metric = out->add_metrics();
    metric->set_name(row.name);
    metric->set_aggregation(ToProto(row.aggregation));
    if (!row.vector_bits.empty()) {
      SetVector(row, *metric);
    } else if (row.is_double) {
      metric->set_double_value(row.double_value);
    } else {
      metric->set_int_value(row.int_value);
    }
  }
}

// Pre-order from ROOT with an explicit stack: a tree's depth must not decide the stack depth of
// the thread that answers.
void EmitPreOrder(const std::vector<MergedNode>& nodes, v1::Tree& tree) {
  std::vector<uint32_t> to_emit = {0};
  while (!to_emit.empty()) {
    const MergedNode& node = nodes[to_emit.back()];
    to_emit.pop_back();
    Emit(node, tree);
    to_emit.insert(to_emit.end(), node.children.rbegin(), node.children.rend());
  }
}

// The devices that a session's processes ran work on, by (process, device): the "device_id"
// property that each GPU activity node carries, in the rows of the process that contributed it.
absl::flat_hash_set<std::pair<uint64_t, int64_t>> DevicesRunOn(const store::StoredTree& stored) {
  absl::flat_hash_set<std::pair<uint64_t, int64_t>> used;
  for (const store::MetricRow& row : stored.metrics) {
    if (row.name == "device_id" && row.aggregation == store::MetricAggregation::kProperty &&
        !row.is_double) {
      used.emplace(row.process_id, row.int_value);
    }
  }
  return used;
}

void AddDevice(const store::SessionDevice& stored, bool used, v1::Tree& tree) {
  const store::DeviceRow& row = stored.device;
  v1::Device* device = tree.add_devices();
  device->set_used(used);
  device->set_process_id(row.process_id);
  device->set_pid(stored.pid);
  device->set_device_id(row.device_id);
  device->set_name(row.name);
  device->set_arch(row.arch);
  device->set_num_sms(row.num_sms);
  device->set_clock_rate_khz(row.clock_rate_khz);
  device->set_memory_clock_rate_khz(row.memory_clock_rate_khz);
  device->set_bus_width_bits(row.bus_width_bits);
  device->set_memory_bytes(row.memory_bytes);
}

// An instruction's offset, from its name ("0x0170" or "0x0170  LDG.E R4, ...").
uint64_t InstructionOffset(const store::NodeRow& row) {
  uint64_t offset = 0;
  const absl::string_view name = row.name;
  return absl::SimpleHexAtoi(name.substr(0, name.find(' ')), &offset) ? offset : UINT64_MAX;
}

// A line's instructions in address order, as a disassembly lists them; they arrive in the order
// they were first sampled.
void SortInstructions(std::vector<MergedNode>& nodes) {
  for (MergedNode& node : nodes) {
    std::stable_sort(node.children.begin(), node.children.end(), [&](uint32_t a, uint32_t b) {
      const bool a_instruction = nodes[a].row.kind == store::NodeKind::kInstruction;
      const bool b_instruction = nodes[b].row.kind == store::NodeKind::kInstruction;
      if (!a_instruction || !b_instruction) return !a_instruction && b_instruction;
      return InstructionOffset(nodes[a].row) < InstructionOffset(nodes[b].row);
    });
  }
}

}  // namespace

void KeepProcesses(const std::vector<uint64_t>& process_ids, store::StoredTree& stored) {
  const auto dropped = [&](uint64_t process_id) {
    return std::find(process_ids.begin(), process_ids.end(), process_id) == process_ids.end();
  };
  std::erase_if(stored.node_stats, [&](const auto& row) { return dropped(row.process_id); });
  std::erase_if(stored.metrics, [&](const auto& row) { return dropped(row.process_id); });
  std::erase_if(stored.devices, [&](const auto& row) { return dropped(row.device.process_id); });
}

v1::Tree BuildTree(const store::StoredTree& stored, bool instructions) {
  std::vector<MergedNode> nodes(1);
  nodes[0].row.name = "ROOT";
  absl::flat_hash_map<uint32_t, uint32_t> index_of = {{0, 0}};
  for (const store::NodeRow& row : stored.nodes) {
    auto parent = index_of.find(row.parent_id);
    if (parent == index_of.end() || index_of.contains(row.node_id)) continue;  // damaged rows
    if (row.kind == store::NodeKind::kInstruction && !instructions) {
      index_of[row.node_id] = parent->second;  // its stats and metrics go to its line
      continue;
    }
    const uint32_t index = static_cast<uint32_t>(nodes.size());
    nodes[parent->second].children.push_back(index);
    index_of[row.node_id] = index;
    nodes.emplace_back().row = row;
  }
  for (const store::NodeStatsRow& row : stored.node_stats) {
    auto it = index_of.find(row.node_id);
    if (it == index_of.end() || row.count == 0) continue;
    MergedNode& node = nodes[it->second];
    node.min = node.count == 0 ? row.duration_ns_min : std::min(node.min, row.duration_ns_min);
    node.max = std::max(node.max, row.duration_ns_max);
    node.count += row.count;
    node.sum += row.duration_ns_sum;
  }
  for (const store::MetricRow& row : stored.metrics) {
    auto it = index_of.find(row.node_id);
    if (it != index_of.end()) MergeMetric(nodes[it->second], row);
  }
  if (instructions) SortInstructions(nodes);
  v1::Tree tree;
  EmitPreOrder(nodes, tree);
  const absl::flat_hash_set<std::pair<uint64_t, int64_t>> used = DevicesRunOn(stored);
  for (const store::SessionDevice& device : stored.devices) {
    AddDevice(device, used.contains({device.device.process_id, device.device.device_id}), tree);
  }
  return tree;
}

}  // namespace protond::query
