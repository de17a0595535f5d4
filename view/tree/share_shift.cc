#include "view/tree/share_shift.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "view/render/metric_values.h"
#include "view/render/text_table.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"

namespace protond::view {
namespace {

using Path = std::vector<std::string>;

// One profile's time by kernel name and by scope path, and the total the shares are of.
struct Times {
  std::map<std::string, double> kernels;
  std::map<Path, double> scopes;
  double total_ns = 0;
};

std::vector<Path> ScopePaths(const v1::Tree& tree, const TreeShape& shape) {
  std::vector<Path> paths(tree.nodes_size());
  for (int i = 1; i < tree.nodes_size(); ++i) {
    paths[i] = paths[shape.parent[i]];
    paths[i].push_back(tree.nodes(i).name());
  }
  return paths;
}

// Each kernel's GPU time, and each scope's: the GPU time of the kernels under it.
Times GpuTimes(const v1::Tree& tree, const TreeShape& shape) {
  Times times;
  std::vector<double> inclusive(tree.nodes_size(), 0);
  std::vector<bool> gpu(tree.nodes_size(), false);
  for (int i = tree.nodes_size() - 1; i > 0; --i) {  // children follow their parents
    if (const std::optional<double> ns = NodeGpuTimeNs(tree.nodes(i))) {
      gpu[i] = true;
      inclusive[i] += *ns;
      times.kernels[tree.nodes(i).name()] += *ns;
      times.total_ns += *ns;
    }
    inclusive[shape.parent[i]] += inclusive[i];
  }
  const std::vector<Path> paths = ScopePaths(tree, shape);
  for (int i = 1; i < tree.nodes_size(); ++i) {
    if (!gpu[i] && inclusive[i] > 0) times.scopes[paths[i]] += inclusive[i];
  }
  return times;
}

// Without GPU work: each scope's wall time, of the outermost timed scopes' total (a scope that
// was open through the whole profile, like a training loop's, has no time of its own).
Times ScopeTimes(const v1::Tree& tree, const TreeShape& shape) {
  Times times;
  const std::vector<Path> paths = ScopePaths(tree, shape);
  std::vector<bool> under_timed(tree.nodes_size(), false);
  for (int i = 1; i < tree.nodes_size(); ++i) {
    const int parent = shape.parent[i];
    under_timed[i] =
        parent > 0 && (under_timed[parent] || tree.nodes(parent).duration_ns_sum() > 0);
    const double ns = static_cast<double>(tree.nodes(i).duration_ns_sum());
    if (ns <= 0) continue;
    times.scopes[paths[i]] += ns;
    if (!under_timed[i]) times.total_ns += ns;
  }
  return times;
}

double Share(double ns, double total_ns) { return total_ns > 0 ? ns / total_ns : 0; }

template <typename Key>
void AddMoves(const std::map<Key, double>& now, double now_total, const std::map<Key, double>& then,
              double then_total, double threshold, bool kernel, std::vector<ShareShift>* moved) {
  std::map<Key, std::pair<double, double>> both;  // then, now
  for (const auto& [key, ns] : then) both[key].first = Share(ns, then_total);
  for (const auto& [key, ns] : now) both[key].second = Share(ns, now_total);
  for (const auto& [key, shares] : both) {
    if (std::abs(shares.second - shares.first) <= threshold) continue;
    ShareShift shift;
    shift.kernel = kernel;
    shift.then_share = shares.first;
    shift.now_share = shares.second;
    if constexpr (std::is_same_v<Key, Path>) {
      shift.name = absl::StrJoin(key, "/");
    } else {
      shift.name = key;
    }
    moved->push_back(std::move(shift));
  }
}

absl::StatusOr<Times> TimesOf(const v1::Tree& profile, bool gpu_time) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(profile));
  const v1::Tree shown = DropHiddenFrames(profile, shape);
  ASSIGN_OR_RETURN(const TreeShape shown_shape, CheckTreeShape(shown));
  return gpu_time ? GpuTimes(shown, shown_shape) : ScopeTimes(shown, shown_shape);
}

}  // namespace

absl::StatusOr<ShareShifts> FindShareShifts(const v1::Tree& now, const v1::Tree& then,
                                            double threshold) {
  if (!(threshold >= 0 && threshold < 1)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the threshold must be a share in [0, 1), not %g", threshold));
  }
  ASSIGN_OR_RETURN(Times now_times, TimesOf(now, /*gpu_time=*/true));
  ASSIGN_OR_RETURN(Times then_times, TimesOf(then, /*gpu_time=*/true));
  ShareShifts shifts;
  shifts.gpu_time = now_times.total_ns > 0 || then_times.total_ns > 0;
  if (!shifts.gpu_time) {
    ASSIGN_OR_RETURN(now_times, TimesOf(now, /*gpu_time=*/false));
    ASSIGN_OR_RETURN(then_times, TimesOf(then, /*gpu_time=*/false));
  }
  shifts.now_total_ns = now_times.total_ns;
  shifts.then_total_ns = then_times.total_ns;
  AddMoves(now_times.kernels, now_times.total_ns, then_times.kernels, then_times.total_ns,
           threshold, /*kernel=*/true, &shifts.moved);
  AddMoves(now_times.scopes, now_times.total_ns, then_times.scopes, then_times.total_ns, threshold,
           /*kernel=*/false, &shifts.moved);
  std::stable_sort(
      shifts.moved.begin(), shifts.moved.end(), [](const ShareShift& a, const ShareShift& b) {
        return std::abs(a.now_share - a.then_share) > std::abs(b.now_share - b.then_share);
      });
  return shifts;
}

std::string RenderShareShifts(const ShareShifts& shifts, double threshold, KernelNames names) {
  const char* what = shifts.gpu_time ? "GPU time" : "scope time (no GPU work in either range)";
  std::string out = absl::StrFormat("share of %s: now %.3f ms, then %.3f ms\n", what,
                                    shifts.now_total_ns / 1e6, shifts.then_total_ns / 1e6);
  if (shifts.moved.empty()) {
    absl::StrAppendFormat(&out, "no kernel or scope moved by more than %.1f points\n",
                          100 * threshold);
    return out;
  }
  static constexpr TableColumn kColumns[] = {
      {"THEN %", true}, {"NOW %", true}, {"CHANGE", true}, {"KIND", false}, {"NAME", false}};
  std::vector<std::vector<std::string>> rows;
  for (const ShareShift& shift : shifts.moved) {
    rows.push_back({absl::StrFormat("%.1f", 100 * shift.then_share),
                    absl::StrFormat("%.1f", 100 * shift.now_share),
                    absl::StrFormat("%+.1f", 100 * (shift.now_share - shift.then_share)),
                    shift.kernel ? "kernel" : "scope",
                    shift.kernel ? KernelName(shift.name, names) : shift.name});
  }
  return absl::StrCat(out, RenderTextTable(kColumns, rows));
}

}  // namespace protond::view
