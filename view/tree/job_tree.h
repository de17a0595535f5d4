// One view of a job over all its ranks: their trees lined up frame by frame (tree_union.h) and,
// for each frame, how one metric spreads over the ranks, so that a straggler stands out. Pure
// functions; no I/O (cli/fan_out/ reads the ranks' trees from their nodes).
#ifndef PROTOND_VIEW_TREE_JOB_TREE_H_
#define PROTOND_VIEW_TREE_JOB_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "view/render/metric_spec.h"
#include "view/tree/tree_diff.h"

namespace protond::view {

// One rank's part of a job's session, with the metric's column computed on it (`values` has
// exactly one column).
struct RankTree {
  std::string host;         // where it was read: HOST:PORT, or "" for this node's socket
  std::string rank;         // its RANK; "" when it had none
  uint64_t session_id = 0;  // the session it was read from
  TreeValues values;
};

// The columns of the spread of `metric`: its total over the ranks, then the min, median and max
// over the ranks that have the frame, the slowest rank (the one with the max), and how many ranks
// have the frame.
std::vector<MetricColumn> SpreadColumns(const MetricColumn& metric);

// The union of the ranks' frames with SpreadColumns' values. A median over an even number of
// ranks is the mean of the middle two. The slowest rank is its RANK where that is a number, else
// its position in `ranks`; ties go to the first. At least one rank is needed.
absl::StatusOr<TreeValues> SpreadOverRanks(const std::vector<RankTree>& ranks);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_JOB_TREE_H_
