#include "view/tree/frame_filter.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "re2/re2.h"

namespace protond::view {
namespace {

constexpr char kLaunchMetadata[] = "__proton_launch_metadata";

// `keep` must hold every kept node's parent too. Kept nodes move down in place (swapping
// pointers), so that no node is copied: a profile has tens of thousands.
v1::Tree KeepNodes(v1::Tree tree, const std::vector<bool>& keep) {
  auto* nodes = tree.mutable_nodes();
  int kept = 0;
  for (int i = 0; i < nodes->size(); ++i) {
    if (!keep[i]) continue;
    if (kept != i) nodes->SwapElements(kept, i);
    ++kept;
  }
  nodes->DeleteSubrange(kept, nodes->size() - kept);
  return tree;
}

bool IsLaunchMetadata(const std::string& name) {
  return name == kLaunchMetadata || absl::StartsWith(name, absl::StrCat(kLaunchMetadata, ":"));
}

// Nodes that are `marked` or lie on the path from ROOT to a marked node. Children follow their
// parents, so one pass from the back reaches every ancestor.
std::vector<bool> WithAncestors(const TreeShape& shape, std::vector<bool> marked) {
  for (int i = static_cast<int>(marked.size()) - 1; i > 0; --i) {
    if (marked[i]) marked[shape.parent[i]] = true;
  }
  if (!marked.empty()) marked[0] = true;
  return marked;
}

absl::StatusOr<std::vector<bool>> MatchNames(const v1::Tree& tree, const std::string& regex) {
  const RE2 re(regex, RE2::Quiet);
  if (!re.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", regex, "' is not a regular expression: ", re.error()));
  }
  std::vector<bool> matches(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    const std::string& name = tree.nodes(i).name();
    matches[i] = re.Match(name, 0, name.size(), RE2::ANCHOR_START, nullptr, 0);
  }
  return matches;
}

}  // namespace

v1::Tree DropHiddenFrames(v1::Tree tree, const TreeShape& shape) {
  const int n = tree.nodes_size();
  std::vector<bool> hidden(n);
  for (int i = 1; i < n; ++i) {
    hidden[i] = hidden[shape.parent[i]] || IsLaunchMetadata(tree.nodes(i).name());
  }
  std::vector<bool> keep(n);
  for (int i = n - 1; i >= 0; --i) {  // children first: a frame may be left without them
    const v1::TreeNode& node = tree.nodes(i);
    keep[i] = i == 0 || (!hidden[i] && (node.metrics_size() > 0 || node.count() > 0));
    for (int child : shape.children[i]) keep[i] = keep[i] || (keep[child] && !hidden[i]);
  }
  return KeepNodes(std::move(tree), keep);
}

absl::StatusOr<v1::Tree> IncludeFrames(v1::Tree tree, const TreeShape& shape,
                                       const std::string& regex) {
  ASSIGN_OR_RETURN(std::vector<bool> keep, MatchNames(tree, regex));
  for (int i = 1; i < tree.nodes_size(); ++i) keep[i] = keep[i] || keep[shape.parent[i]];
  std::vector<bool> kept = WithAncestors(shape, std::move(keep));
  return KeepNodes(std::move(tree), kept);
}

absl::StatusOr<v1::Tree> ExcludeFrames(v1::Tree tree, const TreeShape& shape,
                                       const std::string& regex) {
  ASSIGN_OR_RETURN(const std::vector<bool> matches, MatchNames(tree, regex));
  std::vector<bool> keep(tree.nodes_size(), true);
  for (int i = 1; i < tree.nodes_size(); ++i) keep[i] = !matches[i] && keep[shape.parent[i]];
  return KeepNodes(std::move(tree), keep);
}

v1::Tree KeepAtLeast(v1::Tree tree, const TreeShape& shape, const std::vector<MetricValue>& values,
                     double threshold) {
  std::vector<bool> marked(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    marked[i] = !values[i].blank() && values[i].AsDouble() >= threshold;
  }
  std::vector<bool> kept = WithAncestors(shape, std::move(marked));
  return KeepNodes(std::move(tree), kept);
}

}  // namespace protond::view
