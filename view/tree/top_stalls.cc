#include "view/tree/top_stalls.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "view/render/metric_values.h"
#include "view/render/text_table.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"STALLED", true},
                                    {"STALLED %", true},
                                    {"SAMPLES", true},
                                    {"TOP REASONS", false},
                                    {"LINE", false}};
constexpr int kReasonsShown = 3;
constexpr std::string_view kStalledPrefix = "stalled_";

struct Line {
  std::string name;
  double samples = 0;
  double stalled = 0;
  std::map<std::string, double> reasons;  // "long_scoreboard" -> samples
};

// Lines by name, summed over their call paths; a node is a line if it has samples itself.
std::vector<Line> CollectLines(const v1::Tree& tree) {
  std::map<std::string, Line> lines;
  for (const v1::TreeNode& node : tree.nodes()) {
    Line* line = nullptr;
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.name() != "num_samples" && metric.name() != "num_stalled_samples" &&
          !metric.name().starts_with(kStalledPrefix)) {
        continue;
      }
      if (line == nullptr) {
        line = &lines[node.name()];
        line->name = node.name();
      }
      const double value = ValueOf(metric).AsDouble();
      if (metric.name() == "num_samples") {
        line->samples += value;
      } else if (metric.name() == "num_stalled_samples") {
        line->stalled += value;
      } else if (metric.name() != "stalled_selected") {
        line->reasons[metric.name().substr(kStalledPrefix.size())] += value;
      }
    }
  }
  std::vector<Line> sorted;
  for (auto& [name, line] : lines) sorted.push_back(std::move(line));
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Line& a, const Line& b) { return a.stalled > b.stalled; });
  return sorted;
}

std::string TopReasons(const Line& line) {
  std::vector<std::pair<std::string, double>> reasons(line.reasons.begin(), line.reasons.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> shown;
  for (const auto& [reason, samples] : reasons) {
    if (static_cast<int>(shown.size()) == kReasonsShown || samples <= 0) break;
    shown.push_back(
        absl::StrFormat("%s %.0f%%", reason, line.stalled > 0 ? 100 * samples / line.stalled : 0));
  }
  return shown.empty() ? "-" : absl::StrJoin(shown, ", ");
}

}  // namespace

std::string RenderTopStalls(const v1::Tree& tree, int limit) {
  const std::vector<Line> lines = CollectLines(tree);
  if (lines.empty()) {
    return "no PC samples in this profile (record them with --mode pcsampling)\n";
  }
  double total_stalled = 0;
  for (const Line& line : lines) total_stalled += line.stalled;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) < limit; ++i) {
    const Line& line = lines[i];
    rows.push_back(
        {absl::StrFormat("%.0f", line.stalled),
         absl::StrFormat("%.1f", total_stalled > 0 ? 100 * line.stalled / total_stalled : 0),
         absl::StrFormat("%.0f", line.samples), TopReasons(line), line.name});
  }
  return RenderTextTable(kColumns, rows);
}

}  // namespace protond::view
