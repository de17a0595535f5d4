// Clock offsets between hosts, estimated from round trips to each host's protond: protonctl
// reads each daemon's CLOCK_MONOTONIC several times (the GetClock RPC) and keeps the sample with
// the shortest round trip, whose remote reading lies within half that round trip of the middle
// of the trip on protonctl's clock. The offsets put every host's times on one host's clock (the
// reference), as MatchOptions::clock_offset_ns wants them (docs/jobs.md, "Across hosts"). Pure;
// no I/O.
#ifndef PROTOND_VIEW_JOBS_CLOCK_OFFSET_H_
#define PROTOND_VIEW_JOBS_CLOCK_OFFSET_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "view/jobs/match.h"

namespace protond::view {

// One reading of a remote clock: sent_ns and received_ns on the local clock (protonctl's
// CLOCK_MONOTONIC), remote_ns_untrusted as the host answered it.
struct ClockSample {
  int64_t sent_ns = 0;
  int64_t remote_ns_untrusted = 0;
  int64_t received_ns = 0;
};

// What to add to a clock's times to put them on another clock, give or take error_ns.
struct ClockOffset {
  int64_t offset_ns = 0;
  int64_t error_ns = 0;
};

// The remote clock against the local one, from the sample with the shortest round trip:
// offset = the trip's middle minus the remote reading, error = half the round trip.
// InvalidArgumentError without a usable sample (none, or each going back in time or out of range).
absl::StatusOr<ClockOffset> EstimateClockOffset(std::span<const ClockSample> samples);

// One host's samples, or why it has none ("GetClock is not served: ...").
struct HostClockSamples {
  std::string host;
  absl::StatusOr<std::vector<ClockSample>> samples;
};

// Every host's clock against the reference host's.
struct HostClocks {
  std::string reference;                       // "" when no host could be estimated
  std::map<std::string, ClockOffset> offsets;  // every estimated host, the reference at 0 ± 0
  std::map<std::string, std::string> unknown;  // every other host: why

  // The offsets for MatchCollectives: a call spanning a host without one is refused.
  MatchOptions ToMatchOptions() const;
  // The largest error of the offsets: a lateness below it may be the clocks' own.
  int64_t MaxErrorNs() const;
};

// The reference is the first host (in `hosts`' order) whose offset could be estimated; each
// other host's offset is its offset against the local clock less the reference's, and its error
// the sum of both errors.
HostClocks RelateHostClocks(std::span<const HostClockSamples> hosts);

// "clock offsets: node02 +1.234 ms ± 0.050 ms against node01" (one line for all hosts), then a
// line per host without one ("no clock offset for node03: why; calls it shares with other
// hosts are not compared"). "" for one host.
std::string RenderHostClocks(const HostClocks& clocks);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_CLOCK_OFFSET_H_
