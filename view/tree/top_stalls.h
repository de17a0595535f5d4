// `protonctl top --stalls`: the sampled source lines (PC sampling's nodes, docs/pc-sampling.md)
// with the most stalled samples, over all call paths, each with its top stall reasons, and the
// sampled SASS instructions of each line (`tree -f sass`'s nodes). Works on a protond session and
// on a Hatchet file of Proton's pcsampling mode alike. Pure functions; no I/O.
#ifndef PROTOND_VIEW_TREE_TOP_STALLS_H_
#define PROTOND_VIEW_TREE_TOP_STALLS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// The samples of a line or an instruction, summed over its call paths.
struct StallCounts {
  double samples = 0;
  double stalled = 0;
  std::map<std::string, double> reasons;  // "long_scoreboard" -> samples; "selected" left out
};

// A reason and its share of the stalled samples (0..1).
struct StallReason {
  std::string reason;
  double samples = 0;
  double share = 0;
};

// The three reasons with the most samples, most first ("long_scoreboard 90%, wait 10%" in text).
std::vector<StallReason> TopStallReasons(const StallCounts& counts);
std::string StallReasonsText(const std::vector<StallReason>& reasons);

struct StalledLine {
  std::string name;  // "dir/file:line@function"
  StallCounts counts;
  double share = 0;                // of all stalled samples, 0..1
  std::vector<std::string> cells;  // by TopStallColumns, as `top --stalls` prints them
};

// `top --stalls`' listing before it is printed: the `limit` lines with the most stalled samples,
// most first; `note` says why there are none.
struct TopStalls {
  std::vector<StalledLine> lines;
  std::string note;
};
std::vector<std::string> TopStallColumns();
TopStalls BuildTopStalls(const v1::Tree& tree, int limit);

// A table of the `limit` lines with the most stalled samples: stalled samples, their share of
// all stalled samples, all samples, the top three reasons with their shares of the line's
// stalls, and the line. A profile without PC samples gets one line that says so.
std::string RenderTopStalls(const v1::Tree& tree, int limit);

// A sampled SASS instruction of a tree with instructions (GetTree's `instructions`): a node with
// samples named by its offset and, where nvdisasm gave it, its text ("0x0170  LDG.E R4, ...").
struct StalledInstruction {
  std::string offset;  // "0x0170"
  std::string text;    // "LDG.E R4, desc[UR4][R2.64]"; empty where the daemon had none
  StallCounts counts;
};

// The instructions of `tree` by the name of their line (their parent), each line's in address
// order, summed over the line's call paths. InvalidArgumentError for a tree of a bad shape.
absl::StatusOr<std::map<std::string, std::vector<StalledInstruction>>> InstructionsByLine(
    const v1::Tree& tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TOP_STALLS_H_
