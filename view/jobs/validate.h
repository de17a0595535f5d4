// The check every collective record passes before matching (collective.h): each field comes from
// a plugin inside the user's process, so a record that is wrong is counted, described and left
// out, and the rest are kept. Never crashes, whatever the input. Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_VALIDATE_H_
#define PROTOND_VIEW_JOBS_VALIDATE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "view/jobs/collective.h"

namespace protond::view {

// The most ranks a communicator may have (NCCL's largest jobs are tens of thousands of GPUs).
inline constexpr int64_t kMaxCommunicatorRanks = 1 << 20;
// The largest message one collective call may move: 1 TiB is past any GPU's memory.
inline constexpr uint64_t kMaxCollectiveBytes = uint64_t{1} << 40;
// The longest job, host, datatype, algorithm and protocol; and the longest scope path.
inline constexpr size_t kMaxNameBytes = 256;
inline constexpr size_t kMaxScopePathBytes = 4096;
// How many problems are described in words; every one is counted.
inline constexpr size_t kMaxProblemMessages = 32;

// Why a record was left out. Each is counted in ValidationStats.
enum class CollectiveProblem {
  kEmptyOp,         // op is ""
  kUnknownOp,       // op names no collective ParseCollectiveOp knows
  kBadRanks,        // nranks < 1 or > kMaxCommunicatorRanks
  kRankOutOfRange,  // rank < 0 or rank >= nranks
  kBadPid,          // pid <= 0
  kBadTimes,        // start_ns < 0, or end_ns < start_ns
  kAbsurdBytes,     // bytes > kMaxCollectiveBytes
  kBadText,         // a string too long, or not well-formed UTF-8
  kOtherJob,        // job differs from the one being read
  kRanksMismatch,   // nranks differs from the communicator's first record
  kRankMoved,       // the communicator's rank was held by another process before
  kOpMismatch,      // op differs from the first record of the same (communicator, seq)
  kDuplicateCall,   // (communicator, seq, rank) seen before
};
inline constexpr size_t kCollectiveProblemKinds = 13;

// "empty_op", "unknown_op", ...: the problem's name in stats and messages.
std::string_view CollectiveProblemName(CollectiveProblem problem);

// What validation left out, by kind (index: the enum's value), with the first
// kMaxProblemMessages described ("record 12: rank 5 is not below nranks 4").
struct ValidationStats {
  uint64_t accepted = 0;
  std::array<uint64_t, kCollectiveProblemKinds> rejected{};
  std::vector<std::string> messages;

  uint64_t Count(CollectiveProblem problem) const { return rejected[static_cast<size_t>(problem)]; }
  uint64_t TotalRejected() const;
};

struct ValidatedCollectives {
  std::vector<CollectiveRecord> records;  // in input order
  ValidationStats stats;
};

// Checks each record on its own, then against those accepted before it, in input order: the
// first record of a communicator fixes its nranks, the first of a (communicator, rank) its
// process, the first of a (communicator, seq) its op, and a later duplicate of a
// (communicator, seq, rank) is left out. `job`, when not empty, is the only job accepted.
ValidatedCollectives ValidateCollectives(const std::vector<CollectiveRecordUntrusted>& records,
                                         std::string_view job);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_VALIDATE_H_
