#include "view/tree/tree_merge.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/render/tree_shape.h"
#include "view/tree/tree_union.h"

namespace protond::view {
namespace {

void AddTimes(const v1::TreeNode& from, v1::TreeNode* into) {
  if (from.count() > 0) {
    const bool first = into->count() == 0;
    into->set_duration_ns_min(first ? from.duration_ns_min()
                                    : std::min(into->duration_ns_min(), from.duration_ns_min()));
    into->set_duration_ns_max(std::max(into->duration_ns_max(), from.duration_ns_max()));
  }
  into->set_count(into->count() + from.count());
  into->set_duration_ns_sum(into->duration_ns_sum() + from.duration_ns_sum());
}

double AsDouble(const v1::Metric& metric) {
  return metric.value_case() == v1::Metric::kDoubleValue ? metric.double_value()
                                                         : static_cast<double>(metric.int_value());
}

template <typename Vector>
bool AddVector(const Vector& from, Vector* into) {
  if (from.values_size() != into->values_size()) return false;
  for (int i = 0; i < from.values_size(); ++i) {
    into->set_values(i, into->values(i) + from.values(i));
  }
  return true;
}

bool IsVector(const v1::Metric& metric) {
  return metric.value_case() == v1::Metric::kIntVector ||
         metric.value_case() == v1::Metric::kDoubleVector;
}

// A vector metric added element-wise: both the same type and length, else an error naming it.
absl::Status AddVectorMetric(const v1::Metric& from, v1::Metric* into) {
  const bool added = from.value_case() == into->value_case() &&
                     (from.value_case() == v1::Metric::kIntVector
                          ? AddVector(from.int_vector(), into->mutable_int_vector())
                          : AddVector(from.double_vector(), into->mutable_double_vector()));
  if (added) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "metric '", from.name(),
      "' is a vector of another type or length in one tree than in another: they cannot be added"));
}

// `from` into `into`, which has the same name and aggregation.
absl::Status AddMetric(const v1::Metric& from, v1::Metric* into) {
  if (from.aggregation() == v1::Metric::PROPERTY) {
    into->CopyFrom(from);
  } else if (IsVector(from) || IsVector(*into)) {
    return AddVectorMetric(from, into);
  } else if (from.value_case() == v1::Metric::kIntValue &&
             into->value_case() == v1::Metric::kIntValue) {
    // Wraps as the daemon's own int64 sums refuse to; a range's sums stay far below 2^63.
    into->set_int_value(static_cast<int64_t>(static_cast<uint64_t>(into->int_value()) +
                                             static_cast<uint64_t>(from.int_value())));
  } else {
    into->set_double_value(AsDouble(*into) + AsDouble(from));
  }
  return absl::OkStatus();
}

absl::Status AddMetrics(const v1::TreeNode& from, v1::TreeNode* into) {
  for (const v1::Metric& metric : from.metrics()) {
    auto same = std::find_if(into->mutable_metrics()->begin(), into->mutable_metrics()->end(),
                             [&](const v1::Metric& kept) {
                               return kept.name() == metric.name() &&
                                      kept.aggregation() == metric.aggregation();
                             });
    if (same == into->mutable_metrics()->end()) {
      *into->add_metrics() = metric;
    } else {
      RETURN_IF_ERROR(AddMetric(metric, &*same));
    }
  }
  return absl::OkStatus();
}

void AddDevices(const v1::Tree& from, v1::Tree* into,
                absl::flat_hash_map<std::tuple<uint64_t, uint32_t>, int>* index) {
  for (const v1::Device& device : from.devices()) {
    auto [it, added] = index->try_emplace(std::tuple(device.process_id(), device.device_id()),
                                          into->devices_size());
    if (added) {
      *into->add_devices() = device;
    } else if (device.used()) {
      into->mutable_devices(it->second)->set_used(true);
    }
  }
}

}  // namespace

absl::StatusOr<v1::Tree> MergeTrees(std::span<const v1::Tree> trees) {
  TreeUnion tree_union;
  absl::flat_hash_map<std::tuple<uint64_t, uint32_t>, int> devices;
  absl::flat_hash_set<std::string> notes;
  v1::Tree extras;  // devices and notes, moved into the union's tree at the end
  for (size_t t = 0; t < trees.size(); ++t) {
    const absl::StatusOr<TreeShape> shape = CheckTreeShape(trees[t]);
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tree ", t + 1, " of ", trees.size(), ": ", shape.status().message()));
    }
    const std::vector<int> index = tree_union.Add(trees[t], *shape);
    for (int i = 0; i < trees[t].nodes_size(); ++i) {
      v1::TreeNode* into = tree_union.tree().mutable_nodes(index[i]);
      AddTimes(trees[t].nodes(i), into);
      if (absl::Status added = AddMetrics(trees[t].nodes(i), into); !added.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("tree ", t + 1, " of ", trees.size(),
                                                       ", frame '", into->name(),
                                                       "': ", added.message()));
      }
    }
    AddDevices(trees[t], &extras, &devices);
    for (const std::string& note : trees[t].notes()) {
      if (notes.insert(note).second) extras.add_notes(note);
    }
  }
  v1::Tree merged = std::move(tree_union.tree());
  if (merged.nodes_size() == 0) merged.add_nodes()->set_name("ROOT");
  merged.mutable_devices()->Swap(extras.mutable_devices());
  merged.mutable_notes()->Swap(extras.mutable_notes());
  return merged;
}

}  // namespace protond::view
