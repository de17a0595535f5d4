#include "view/tree/top_stalls.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status/status_macros.h"
#include "view/render/metric_values.h"
#include "view/render/text_table.h"
#include "view/render/tree_shape.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"STALLED", true},
                                    {"STALLED %", true},
                                    {"SAMPLES", true},
                                    {"TOP REASONS", false},
                                    {"LINE", false}};
constexpr int kReasonsShown = 3;
constexpr std::string_view kStalledPrefix = "stalled_";

bool IsSampleMetric(const v1::Metric& metric) {
  return metric.name() == "num_samples" || metric.name() == "num_stalled_samples" ||
         metric.name().starts_with(kStalledPrefix);
}

bool HasSamples(const v1::TreeNode& node) {
  return std::any_of(node.metrics().begin(), node.metrics().end(), IsSampleMetric);
}

// Adds the node's sample metrics to `counts`.
void AddSamples(const v1::TreeNode& node, StallCounts& counts) {
  for (const v1::Metric& metric : node.metrics()) {
    if (!IsSampleMetric(metric)) continue;
    const double value = ValueOf(metric).AsDouble();
    if (metric.name() == "num_samples") {
      counts.samples += value;
    } else if (metric.name() == "num_stalled_samples") {
      counts.stalled += value;
    } else if (metric.name() != "stalled_selected") {
      counts.reasons[metric.name().substr(kStalledPrefix.size())] += value;
    }
  }
}

// Lines by name, summed over their call paths; a node is a line if it has samples itself.
std::vector<StalledLine> CollectLines(const v1::Tree& tree) {
  std::map<std::string, StallCounts> lines;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (HasSamples(node)) AddSamples(node, lines[node.name()]);
  }
  std::vector<StalledLine> sorted;
  for (auto& [name, counts] : lines) {
    StalledLine& line = sorted.emplace_back();
    line.name = name;
    line.counts = std::move(counts);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const StalledLine& a, const StalledLine& b) {
    return a.counts.stalled > b.counts.stalled;
  });
  return sorted;
}

// An instruction node's name is its offset, then two spaces and its text where known
// (daemon/query/instruction_text.h); a line's name never starts with "0x".
bool IsInstructionName(absl::string_view name) { return absl::StartsWith(name, "0x"); }

uint64_t OffsetValue(absl::string_view offset) {
  uint64_t value = 0;
  return absl::SimpleHexAtoi(offset, &value) ? value : 0;
}

}  // namespace

std::vector<StallReason> TopStallReasons(const StallCounts& counts) {
  std::vector<StallReason> reasons;
  for (const auto& [reason, samples] : counts.reasons) {
    if (samples <= 0) continue;
    reasons.push_back({reason, samples, counts.stalled > 0 ? samples / counts.stalled : 0});
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const StallReason& a, const StallReason& b) {
    return a.samples > b.samples;
  });
  if (reasons.size() > kReasonsShown) reasons.resize(kReasonsShown);
  return reasons;
}

std::string StallReasonsText(const std::vector<StallReason>& reasons) {
  if (reasons.empty()) return "-";
  return absl::StrJoin(reasons, ", ", [](std::string* out, const StallReason& reason) {
    absl::StrAppendFormat(out, "%s %.0f%%", reason.reason, 100 * reason.share);
  });
}

std::vector<std::string> TopStallColumns() { return ColumnHeaders(kColumns); }

TopStalls BuildTopStalls(const v1::Tree& tree, int limit) {
  TopStalls top;
  std::vector<StalledLine> lines = CollectLines(tree);
  if (lines.empty()) {
    top.note = "no PC samples in this profile (record them with --mode pcsampling)";
    return top;
  }
  double total_stalled = 0;
  for (const StalledLine& line : lines) total_stalled += line.counts.stalled;
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) < limit; ++i) {
    StalledLine& line = top.lines.emplace_back(std::move(lines[i]));
    line.share = total_stalled > 0 ? line.counts.stalled / total_stalled : 0;
    line.cells = {absl::StrFormat("%.0f", line.counts.stalled),
                  absl::StrFormat("%.1f", 100 * line.share),
                  absl::StrFormat("%.0f", line.counts.samples),
                  StallReasonsText(TopStallReasons(line.counts)), line.name};
  }
  return top;
}

std::string RenderTopStalls(const v1::Tree& tree, int limit) {
  const TopStalls top = BuildTopStalls(tree, limit);
  if (!top.note.empty()) return absl::StrCat(top.note, "\n");
  std::vector<std::vector<std::string>> rows;
  for (const StalledLine& line : top.lines) rows.push_back(line.cells);
  return RenderTextTable(kColumns, rows);
}

absl::StatusOr<std::map<std::string, std::vector<StalledInstruction>>> InstructionsByLine(
    const v1::Tree& tree) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  std::map<std::string, std::map<std::string, StallCounts>> by_line;  // line -> name -> counts
  for (int i = 1; i < tree.nodes_size(); ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    if (!IsInstructionName(node.name()) || !HasSamples(node)) continue;
    AddSamples(node, by_line[tree.nodes(shape.parent[i]).name()][node.name()]);
  }
  std::map<std::string, std::vector<StalledInstruction>> instructions;
  for (auto& [line, named] : by_line) {
    std::vector<StalledInstruction>& list = instructions[line];
    for (auto& [name, counts] : named) {
      const std::pair<absl::string_view, absl::string_view> parts =
          absl::StrSplit(name, absl::MaxSplits(' ', 1));
      list.push_back({std::string(parts.first),
                      std::string(absl::StripAsciiWhitespace(parts.second)), std::move(counts)});
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const StalledInstruction& a, const StalledInstruction& b) {
                       return OffsetValue(a.offset) < OffsetValue(b.offset);
                     });
  }
  return instructions;
}

}  // namespace protond::view
