// The per-collective table of `protonctl job` and `protonctl top --collectives`: a row per (op,
// communicator) of a matched job (view::SummarizeCollectives), heaviest first.
#ifndef PROTOND_VIEW_JOBS_COLLECTIVE_TABLE_H_
#define PROTOND_VIEW_JOBS_COLLECTIVE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "view/jobs/match.h"

namespace protond::view {

// Calls, judged calls, the ranks' time, the transfer time, the early ranks' wait, algorithm and
// protocol; `with_bytes` adds the bytes and the median bus bandwidth, which only the NCCL
// profiler plugin's records carry. At most `limit` rows (0: all).
std::string RenderCollectiveTable(const MatchedJob& matched, bool with_bytes, size_t limit = 0);

// "512 B", "4.19 MB", "210 GB": three significant figures, powers of 1000 as GB/s.
std::string FormatBytes(uint64_t bytes);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_COLLECTIVE_TABLE_H_
