// `protonctl tree`: a profile's call tree rendered with proton-viewer's options, from a daemon
// session or a Hatchet file alike (both are a v1::Tree). Pure functions; no I/O.
#ifndef PROTOND_VIEW_TREE_PROFILE_VIEW_H_
#define PROTOND_VIEW_TREE_PROFILE_VIEW_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/metric_spec.h"
#include "view/render/tree_view.h"
#include "view/tree/frame_names.h"
#include "view/tree/tree_diff.h"

namespace protond::view {

struct ViewOptions {
  std::string metrics;                      // -m, as metric_spec.h reads it; empty: the default
  int depth = kDefaultTreeDepth;            // -d
  std::optional<double> threshold;          // -t: frames whose first metric is at least this, and
                                            // their ancestors
  std::string include;                      // -i REGEX
  std::string exclude;                      // -e REGEX; not with include
  FrameFormat format = FrameFormat::kFull;  // -f
  bool print_sorted = false;                // --print-sorted
  KernelNames kernel_names = KernelNames::kShort;  // --full-names, --mangled
  bool colour = false;  // for a terminal: the first metric coloured, with a legend
};

// A profile as `protonctl tree` shows it, before it is laid out: the one pipeline behind the text
// (RenderProfile) and the web page's JSON (view/json/profile_table_json.h), so both show the same
// frames, names and values. Every frame is here; -d only limits what the text prints.
struct ProfileTable {
  std::vector<MetricColumn> columns;  // in -m's order; each header as printed
  // The frames as shown: `shown.tree`'s names are the printed ones (short C++ names unless
  // --full-names or --mangled, then -f), `shown.values[c][i]` column c at node i, parents before
  // their children.
  TreeValues shown;
  std::vector<std::string> full_names;  // by node: its name before shortening and -f
  std::vector<std::string> notes;       // the profile's notes, printed after the tree
};

// In order: hidden frames dropped, names demangled, -i/-e, -t (each profile by its own values),
// then with `diff_base` the two trees matched frame by frame and `profile - diff_base` shown,
// then C++ names shortened (unless --full-names or --mangled) and -f. -i, -e and the diff see
// the full names, which tell kernels apart. Metric names are parsed against both profiles' metrics,
// so a metric only one side has shows as a difference from zero. --print-sorted adds every frame
// but ROOT under the tree, largest first value first (frames without one left out), names cut at
// 100 characters. `profile` is taken by value: move it in when it is not needed after.
absl::StatusOr<ProfileTable> BuildProfileTable(v1::Tree profile, const ViewOptions& options,
                                               const v1::Tree* diff_base = nullptr);

// BuildProfileTable's table as text: the tree to -d, the sorted list, the notes.
absl::StatusOr<std::string> RenderProfile(v1::Tree profile, const ViewOptions& options,
                                          const v1::Tree* diff_base = nullptr);

// ViewOptions as protond's ViewTree takes them, and back: InvalidArgumentError for a depth below
// 1 or an unknown frame format (a request from some other client). The proto's `mangled` is
// kMangled; kFull has no field there (protonctl renders it itself), and becomes kShort.
v1::ViewOptions ViewOptionsToProto(const ViewOptions& options);
absl::StatusOr<ViewOptions> ViewOptionsFromProto(const v1::ViewOptions& options);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_PROFILE_VIEW_H_
