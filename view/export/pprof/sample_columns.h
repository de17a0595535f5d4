// The values of a pprof profile's samples: per sample type, each node's own part (pprof.h says
// which types there are). Pure functions; no I/O.
#ifndef PROTOND_VIEW_EXPORT_PPROF_SAMPLE_COLUMNS_H_
#define PROTOND_VIEW_EXPORT_PPROF_SAMPLE_COLUMNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "protond.pb.h"
#include "view/render/tree_shape.h"

namespace protond::view {

struct SampleColumn {
  std::string type;           // "gpu_time"
  std::string unit;           // "nanoseconds"
  std::vector<int64_t> self;  // by node index: the node's own part
};

// The columns of `tree`, whose shape is `shape`; `left_out` gets the names of the properties
// and vector metrics, which have no one number per sample.
std::vector<SampleColumn> BuildSampleColumns(const v1::Tree& tree, const TreeShape& shape,
                                             std::vector<std::string>* left_out);

// `value` rounded to the nearest int64; NaN is 0, and values past int64 are its ends.
int64_t RoundToInt64(double value);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_PPROF_SAMPLE_COLUMNS_H_
