#include "cli/viewer/frame_filter.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "re2/re2.h"

namespace protond::cli {
namespace {

constexpr char kLaunchMetadata[] = "__proton_launch_metadata";

// `keep` must hold every kept node's parent too.
v1::Tree KeepNodes(const v1::Tree& tree, const std::vector<bool>& keep) {
  v1::Tree kept;
  *kept.mutable_devices() = tree.devices();
  for (int i = 0; i < tree.nodes_size(); ++i) {
    if (keep[i]) *kept.add_nodes() = tree.nodes(i);
  }
  return kept;
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

v1::Tree DropHiddenFrames(const v1::Tree& tree, const TreeShape& shape) {
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
  return KeepNodes(tree, keep);
}

absl::StatusOr<v1::Tree> IncludeFrames(const v1::Tree& tree, const TreeShape& shape,
                                       const std::string& regex) {
  ASSIGN_OR_RETURN(std::vector<bool> keep, MatchNames(tree, regex));
  for (int i = 1; i < tree.nodes_size(); ++i) keep[i] = keep[i] || keep[shape.parent[i]];
  return KeepNodes(tree, WithAncestors(shape, std::move(keep)));
}

absl::StatusOr<v1::Tree> ExcludeFrames(const v1::Tree& tree, const TreeShape& shape,
                                       const std::string& regex) {
  ASSIGN_OR_RETURN(const std::vector<bool> matches, MatchNames(tree, regex));
  std::vector<bool> keep(tree.nodes_size(), true);
  for (int i = 1; i < tree.nodes_size(); ++i) keep[i] = !matches[i] && keep[shape.parent[i]];
  return KeepNodes(tree, keep);
}

v1::Tree KeepAtLeast(const v1::Tree& tree, const TreeShape& shape,
                     const std::vector<MetricValue>& values, double threshold) {
  std::vector<bool> marked(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    marked[i] = !values[i].blank() && values[i].AsDouble() >= threshold;
  }
  return KeepNodes(tree, WithAncestors(shape, std::move(marked)));
}

}  // namespace protond::cli
