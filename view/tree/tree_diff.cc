#include "view/tree/tree_diff.h"

#include <string>
#include <utility>

#include "common/status/status_macros.h"
#include "view/tree/tree_union.h"

namespace protond::view {
namespace {

std::vector<MetricValue> Subtract(const std::vector<MetricValue>& profile,
                                  const std::vector<int>& profile_index,
                                  const std::vector<MetricValue>& base,
                                  const std::vector<int>& base_index, int size) {
  std::vector<MetricValue> positive(size);
  std::vector<MetricValue> negative(size);
  for (size_t i = 0; i < profile.size(); ++i) positive[profile_index[i]] = profile[i];
  for (size_t i = 0; i < base.size(); ++i) negative[base_index[i]] = base[i];
  std::vector<MetricValue> difference(size);
  for (int i = 0; i < size; ++i) difference[i] = positive[i].Minus(negative[i]);
  return difference;
}

}  // namespace

absl::StatusOr<TreeValues> DiffTrees(const TreeValues& profile, const TreeValues& base) {
  TreeUnion builder;
  const std::vector<int> profile_index = builder.Add(profile.tree, profile.shape);
  const std::vector<int> base_index = builder.Add(base.tree, base.shape);
  TreeValues diff;
  diff.tree = std::move(builder.tree());
  const int size = diff.tree.nodes_size();
  ASSIGN_OR_RETURN(diff.shape, CheckTreeShape(diff.tree));
  for (size_t c = 0; c < profile.values.size(); ++c) {
    diff.values.push_back(
        Subtract(profile.values[c], profile_index, base.values[c], base_index, size));
  }
  return diff;
}

}  // namespace protond::view
