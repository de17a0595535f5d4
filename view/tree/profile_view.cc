#include "view/tree/profile_view.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "common/text/printable_text.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"
#include "view/tree/tree_diff.h"

namespace protond::view {
namespace {

constexpr size_t kSortedNameWidth = 100;

// "<metric>/%" is a share of the whole profile (hidden frames aside), as in proton-viewer, which
// derives its metrics before it filters.
std::vector<MetricColumn> FixPercentTotals(std::vector<MetricColumn> columns, const v1::Tree& tree,
                                           const TreeShape& shape) {
  for (MetricColumn& column : columns) {
    if (column.percent) column.percent_total = PercentTotal(tree, shape, column);
  }
  return columns;
}

absl::StatusOr<v1::Tree> Filter(v1::Tree tree, const TreeShape& shape, const ViewOptions& options) {
  if (!options.include.empty()) return IncludeFrames(std::move(tree), shape, options.include);
  if (!options.exclude.empty()) return ExcludeFrames(std::move(tree), shape, options.exclude);
  return tree;
}

absl::StatusOr<v1::Tree> ApplyThreshold(v1::Tree tree, const ViewOptions& options,
                                        const MetricColumn& first) {
  if (!options.threshold.has_value()) return tree;
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  const std::vector<MetricValue> values = ComputeColumn(tree, shape, first);
  return KeepAtLeast(std::move(tree), shape, values, *options.threshold);
}

// Names are matched, filtered and diffed in full: kernels that differ only in their template
// arguments are different frames.
KernelNames FullUnlessMangled(KernelNames names) {
  return names == KernelNames::kMangled ? KernelNames::kMangled : KernelNames::kFull;
}

// Each demangled name of `profile` with its short form.
void AddShortNames(const v1::Tree& profile,
                   absl::flat_hash_map<std::string, std::string>* short_names) {
  for (const v1::TreeNode& node : profile.nodes()) {
    const std::string full = KernelName(node.name(), KernelNames::kFull);
    if (full != node.name()) short_names->try_emplace(full, ShortFunctionName(full));
  }
}

void ShortenNames(const absl::flat_hash_map<std::string, std::string>& short_names,
                  v1::Tree* tree) {
  for (v1::TreeNode& node : *tree->mutable_nodes()) {
    auto found = short_names.find(node.name());
    if (found != short_names.end()) *node.mutable_name() = found->second;
  }
}

// One profile as shown, before any diff: hidden frames dropped, names demangled, -i/-e, -t.
absl::StatusOr<TreeValues> Prepare(v1::Tree profile, const ViewOptions& options,
                                   const std::vector<MetricColumn>& parsed_columns) {
  ASSIGN_OR_RETURN(const TreeShape profile_shape, CheckTreeShape(profile));
  v1::Tree tree = DropHiddenFrames(std::move(profile), profile_shape);
  RenameFrames(FrameFormat::kFull, FullUnlessMangled(options.kernel_names), &tree);
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  const std::vector<MetricColumn> columns = FixPercentTotals(parsed_columns, tree, shape);
  ASSIGN_OR_RETURN(tree, Filter(std::move(tree), shape, options));
  ASSIGN_OR_RETURN(tree, ApplyThreshold(std::move(tree), options, columns[0]));
  TreeValues shown;
  ASSIGN_OR_RETURN(shown.shape, CheckTreeShape(tree));
  for (const MetricColumn& column : columns) {
    shown.values.push_back(ComputeColumn(tree, shown.shape, column));
  }
  shown.tree = std::move(tree);
  return shown;
}

// proton-viewer's sorted list: "{:105} {:.4}" per frame.
std::string SortedFrames(const TreeValues& shown, const MetricColumn& first) {
  const std::vector<MetricValue>& values = shown.values[0];
  std::vector<int> order;
  for (int i = 1; i < shown.tree.nodes_size(); ++i) {
    if (!values[i].blank()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return values[a].AsDouble() > values[b].AsDouble(); });
  std::string out = absl::StrCat("Sorted kernels by metric ", first.header, "\n");
  for (int i : order) {
    std::string name = text::PrintableText(shown.tree.nodes(i).name());
    if (name.size() > kSortedNameWidth) name = name.substr(0, kSortedNameWidth) + "...";
    std::string value = absl::StrFormat("%.4g", values[i].d);
    if (values[i].kind == MetricValue::Kind::kInt) value = absl::StrCat(values[i].i);
    if (values[i].kind == MetricValue::Kind::kVector) value = values[i].Format();
    absl::StrAppendFormat(&out, "%-105s %s\n", name, value);
  }
  return out;
}

// -m names the metrics of the whole profiles, whatever the filters leave.
absl::StatusOr<std::vector<MetricColumn>> ParseColumns(const v1::Tree& profile,
                                                       const ViewOptions& options,
                                                       const v1::Tree* diff_base) {
  if (diff_base == nullptr) return ParseMetricSpec(options.metrics, profile);
  v1::Tree both_profiles = profile;
  both_profiles.MergeFrom(*diff_base);
  return ParseMetricSpec(options.metrics, both_profiles);
}

}  // namespace

absl::StatusOr<ProfileTable> BuildProfileTable(v1::Tree profile, const ViewOptions& options,
                                               const v1::Tree* diff_base) {
  if (!options.include.empty() && !options.exclude.empty()) {
    return absl::InvalidArgumentError("-i and -e cannot be used together");
  }
  ProfileTable table;
  ASSIGN_OR_RETURN(table.columns, ParseColumns(profile, options, diff_base));
  table.notes.assign(profile.notes().begin(), profile.notes().end());
  absl::flat_hash_map<std::string, std::string> short_names;
  if (options.kernel_names == KernelNames::kShort) {
    AddShortNames(profile, &short_names);
    if (diff_base != nullptr) AddShortNames(*diff_base, &short_names);
  }
  ASSIGN_OR_RETURN(table.shown, Prepare(std::move(profile), options, table.columns));
  if (diff_base != nullptr) {
    ASSIGN_OR_RETURN(const TreeValues base, Prepare(*diff_base, options, table.columns));
    ASSIGN_OR_RETURN(table.shown, DiffTrees(table.shown, base));
  }
  for (const v1::TreeNode& node : table.shown.tree.nodes()) table.full_names.push_back(node.name());
  ShortenNames(short_names, &table.shown.tree);
  RenameFrames(options.format, KernelNames::kMangled, &table.shown.tree);
  return table;
}

absl::StatusOr<std::string> RenderProfile(v1::Tree profile, const ViewOptions& options,
                                          const v1::Tree* diff_base) {
  ASSIGN_OR_RETURN(const ProfileTable table,
                   BuildProfileTable(std::move(profile), options, diff_base));
  const TreeValues& shown = table.shown;
  std::string out = RenderTreeValues(shown.tree, shown.shape, table.columns, shown.values,
                                     options.depth, options.colour);
  if (options.print_sorted) absl::StrAppend(&out, SortedFrames(shown, table.columns[0]));
  for (const std::string& note : table.notes) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

// The two enums list the formats in the same order.
static_assert(static_cast<int>(FrameFormat::kFull) == v1::ViewOptions::FULL);
static_assert(static_cast<int>(FrameFormat::kFileFunctionLine) ==
              v1::ViewOptions::FILE_FUNCTION_LINE);
static_assert(static_cast<int>(FrameFormat::kFunctionLine) == v1::ViewOptions::FUNCTION_LINE);
static_assert(static_cast<int>(FrameFormat::kFileFunction) == v1::ViewOptions::FILE_FUNCTION);

v1::ViewOptions ViewOptionsToProto(const ViewOptions& options) {
  v1::ViewOptions out;
  out.set_metrics(options.metrics);
  out.set_depth(options.depth);
  if (options.threshold.has_value()) out.set_threshold(*options.threshold);
  out.set_include(options.include);
  out.set_exclude(options.exclude);
  out.set_format(static_cast<v1::ViewOptions::FrameFormat>(options.format));
  out.set_print_sorted(options.print_sorted);
  out.set_mangled(options.kernel_names == KernelNames::kMangled);
  out.set_colour(options.colour);
  return out;
}

absl::StatusOr<ViewOptions> ViewOptionsFromProto(const v1::ViewOptions& options) {
  if (options.depth() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("a tree view's depth must be at least 1, not ", options.depth()));
  }
  if (!v1::ViewOptions::FrameFormat_IsValid(options.format())) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown frame format ", static_cast<int>(options.format())));
  }
  ViewOptions out;
  out.metrics = options.metrics();
  out.depth = options.depth();
  if (options.has_threshold()) out.threshold = options.threshold();
  out.include = options.include();
  out.exclude = options.exclude();
  out.format = static_cast<FrameFormat>(options.format());
  out.print_sorted = options.print_sorted();
  out.kernel_names = options.mangled() ? KernelNames::kMangled : KernelNames::kShort;
  out.colour = options.colour();
  return out;
}

}  // namespace protond::view
