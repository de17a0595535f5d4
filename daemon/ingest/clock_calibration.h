// Converts a process's TSC timestamps (scope records with kTimestampTsc) into CLOCK_MONOTONIC ns,
// the clock of every other time protond keeps, with the pairs (TSC, CLOCK_MONOTONIC) the process's
// shim wrote (kClockSync). The pairs are untrusted: each is checked against the pairs before it
// and against protond's own reading of the TSC on this machine (HostTscClock); a bad one is
// counted, and ignored when it cannot be right. Conversion interpolates between the two pairs
// around a timestamp and extrapolates at the measured rate past the last one. Used by the ingest
// thread only.
#ifndef PROTOND_DAEMON_INGEST_CLOCK_CALIBRATION_H_
#define PROTOND_DAEMON_INGEST_CLOCK_CALIBRATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/clock/tsc_clock.h"

namespace protond::ingest {

// protond's own measurement of the TSC, taken once per ingest cycle: the same counter the shims
// read, since a process's region is mapped from the same machine's kernel.
struct HostTsc {
  clock::ClockPair pair;    // read now
  double ticks_per_ns = 0;  // 0: unknown (no invariant TSC here, or measured for too short a time)
};

class HostTscClock {
 public:
  HostTscClock();
  // A pair now and the rate since the first pair, which the first call waits for until 10 ms
  // lie between them.
  HostTsc Measure();

 private:
  bool usable_ = false;
  clock::ClockPair first_;
};

// What the checks found, for the session's problems (docs/record-format.md).
struct ClockCheckStats {
  uint64_t out_of_order = 0;       // the TSC and the clock disagree on the order of two pairs
  uint64_t rate_out_of_range = 0;  // a TSC rate outside kMinTicksPerNs..kMaxTicksPerNs
  double worst_rate = 0;           // ticks per ns, of the last such pair
  uint64_t disagreeing = 0;        // off the TSC's line through the pairs or protond's own clock
  uint64_t worst_disagreement_ns = 0;
  uint64_t uncalibrated = 0;  // TSC timestamps with no pair and no rate to convert them by
};

class ClockCalibration {
 public:
  // Any TSC of this century: 100 MHz to 10 GHz.
  static constexpr double kMinTicksPerNs = 0.1;
  static constexpr double kMaxTicksPerNs = 10;
  // A pair further than this (plus kRateTolerance of the time between them) off the line through
  // the pair before it, at the reference rate, disagrees. Pairs are taken within a microsecond.
  static constexpr uint64_t kToleranceNs = 20'000;
  static constexpr double kRateTolerance = 1e-3;
  // Pairs closer together than this add nothing to the conversion and are checked only.
  static constexpr uint64_t kMinSpacingNs = 1'000'000;
  static constexpr size_t kMaxPairs = 1024;  // the oldest go first

  void SetHost(const HostTsc& host) {
    host_ = host;
    line_.valid = false;
  }
  void Add(clock::ClockPair pair_untrusted);
  // The CLOCK_MONOTONIC time of `tsc`; nullopt (counted) when there is nothing to convert with.
  std::optional<uint64_t> ToNs(uint64_t tsc);

  const ClockCheckStats& stats() const { return stats_; }
  // One line on what went wrong ("" if nothing did), for the session's problems.
  std::string Summary() const;

 private:
  // Ticks per ns to extrapolate with: protond's own, else the process's pairs' (0: unknown).
  double Rate() const;
  // Whether `pair` is off the line through `anchor` at `ticks_per_ns` beyond the tolerance.
  bool Disagrees(const clock::ClockPair& anchor, double ticks_per_ns, const clock::ClockPair& pair);
  // The index of the last pair at or before `tsc`, or pairs_.size() when there is none.
  size_t SegmentOf(uint64_t tsc);
  // The line a TSC value of a segment converts by: through its pair (or the first pair, or
  // protond's own before any), at the slope to the next pair or the rate past the last.
  struct Line {
    size_t segment = 0;
    clock::ClockPair anchor;
    double ns_per_tick = 0;  // 0: no rate known
    bool valid = false;
  };
  Line LineOf(uint64_t tsc);

  std::vector<clock::ClockPair> pairs_;  // by TSC (and so by time), kMinSpacingNs apart
  size_t last_segment_ = 0;              // a cache for SegmentOf
  Line line_;                            // and for LineOf: a division per segment, not per stamp
  HostTsc host_;
  ClockCheckStats stats_;
};

}  // namespace protond::ingest

#endif  // PROTOND_DAEMON_INGEST_CLOCK_CALIBRATION_H_
