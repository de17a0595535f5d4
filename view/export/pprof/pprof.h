// `protonctl export --format pprof`: a call tree as Google's pprof profile (profile.proto,
// gzipped), which `go tool pprof`, speedscope and Pyroscope read. Pure functions; no I/O.
// docs/export.md says what each sample type is.
#ifndef PROTOND_VIEW_EXPORT_PPROF_PPROF_H_
#define PROTOND_VIEW_EXPORT_PPROF_PPROF_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "profile.pb.h"
#include "protond.pb.h"

namespace protond::view {

// Where a profile came from: its comments and times.
struct PprofOrigin {
  std::string description;         // "session 7 (train)", or a Hatchet file's path
  int64_t start_time_unix_ns = 0;  // 0: not known (a Hatchet file)
  int64_t end_time_unix_ns = 0;    // 0: not known, or the session is still running
};

// The tree, hidden frames dropped as in the tree view, as one sample per node: its stack is the
// node's frames, leaf first and ROOT last, and its values are the node's own part of each sample
// type, so that pprof's sums over a frame's samples give the tree view's inclusive values.
// Sample types, in this order:
// - "count" (count): the node's own count, scope instances or launches; the tree view's count is
//   pprof's flat value (the tree does not sum counts into parents, pprof's cumulative does);
// - "cpu_time" (nanoseconds), when scopes have timings: a scope's wall time less its children's,
//   a child wider than its parent (threads) widening the parent as in the flame graph;
// - GPU time, then each other metric in the order first met, except properties ("(pty)", device_id:
// a last value,
//   not a sum): GPU time ("time (ns)") as "gpu_time" (nanoseconds), "NAME (UNIT)" as NAME (ns,
//   us, ms, s spelled out), any other as its name (count). Floats are rounded to the nearest
//   integer node by node. An exclusive metric ("(exc)") is its flat value.
// A function (and its location) per distinct frame name: the demangled full name as its name,
// the name as stored (mangled, for C++ kernels) as its system name. Text that is not UTF-8 gets
// U+FFFD for each bad byte (protobuf strings must be UTF-8); everything else is kept exactly.
absl::StatusOr<perftools::profiles::Profile> BuildPprofProfile(const v1::Tree& tree,
                                                               const PprofOrigin& origin);

// BuildPprofProfile's profile serialized and gzipped: the bytes of a .pb.gz file.
absl::StatusOr<std::string> RenderPprof(const v1::Tree& tree, const PprofOrigin& origin);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_PPROF_PPROF_H_
