#include "cli/viewer/tree_diff.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

// The union of the frames of the trees added to it, node i with id i; the first tree's ROOT is
// everyone's.
class UnionBuilder {
 public:
  // Where each of `tree`'s nodes lands in the union, by index.
  std::vector<int> Add(const v1::Tree& tree, const TreeShape& shape) {
    std::vector<int> index(tree.nodes_size());
    for (int i = 0; i < tree.nodes_size(); ++i) {
      index[i] =
          i == 0 ? Root(tree.nodes(0).name()) : Find(index[shape.parent[i]], tree.nodes(i).name());
    }
    return index;
  }

  v1::Tree& tree() { return tree_; }

 private:
  int Root(const std::string& name) {
    if (tree_.nodes_size() == 0) tree_.add_nodes()->set_name(name);
    return 0;
  }

  // The union node for a frame named `name` under union node `parent`, made if missing.
  int Find(int parent, const std::string& name) {
    auto [it, added] = index_.try_emplace({parent, name}, tree_.nodes_size());
    if (added) {
      v1::TreeNode* node = tree_.add_nodes();
      node->set_id(it->second);
      node->set_parent_id(parent);
      node->set_name(name);
    }
    return it->second;
  }

  v1::Tree tree_;
  absl::flat_hash_map<std::pair<int, std::string>, int> index_;
};

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
  UnionBuilder builder;
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

}  // namespace protond::cli
