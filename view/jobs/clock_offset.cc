#include "view/jobs/clock_offset.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "view/jobs/time_text.h"

namespace protond::view {

absl::StatusOr<ClockOffset> EstimateClockOffset(std::span<const ClockSample> samples) {
  if (samples.empty()) return absl::InvalidArgumentError("no clock sample");
  const ClockSample* best = nullptr;
  int64_t best_round_trip_ns = 0;
  for (const ClockSample& sample : samples) {
    int64_t round_trip_ns = 0;
    // A reply received before its request was sent is no reading of this clock; skip it.
    if (__builtin_sub_overflow(sample.received_ns, sample.sent_ns, &round_trip_ns) ||
        round_trip_ns < 0) {
      continue;
    }
    if (best == nullptr || round_trip_ns < best_round_trip_ns) {
      best = &sample;
      best_round_trip_ns = round_trip_ns;
    }
  }
  if (best == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("none of the ", samples.size(),
                     " clock samples has a round trip that ends after it began"));
  }
  // sent + round trip is `received`, so its half cannot overflow.
  const int64_t middle_ns = best->sent_ns + best_round_trip_ns / 2;
  ClockOffset estimate;
  if (__builtin_sub_overflow(middle_ns, best->remote_ns_untrusted, &estimate.offset_ns)) {
    return absl::InvalidArgumentError(absl::StrCat("its clock reading ", best->remote_ns_untrusted,
                                                   " ns is too far from this host's clock"));
  }
  // Rounded up: the remote reading may lie anywhere in the round trip.
  estimate.error_ns = best_round_trip_ns / 2 + best_round_trip_ns % 2;
  return estimate;
}

MatchOptions HostClocks::ToMatchOptions() const {
  MatchOptions options;
  for (const auto& [host, offset] : offsets) options.clock_offset_ns[host] = offset.offset_ns;
  return options;
}

int64_t HostClocks::MaxErrorNs() const {
  int64_t max_error_ns = 0;
  for (const auto& [host, offset] : offsets) max_error_ns = std::max(max_error_ns, offset.error_ns);
  return max_error_ns;
}

HostClocks RelateHostClocks(std::span<const HostClockSamples> hosts) {
  HostClocks clocks;
  std::map<std::string, ClockOffset> against_local;
  for (const HostClockSamples& host : hosts) {
    absl::StatusOr<ClockOffset> estimate =
        host.samples.ok() ? EstimateClockOffset(*host.samples) : host.samples.status();
    if (!estimate.ok()) {
      clocks.unknown[host.host] = std::string(estimate.status().message());
      continue;
    }
    against_local[host.host] = *estimate;
    if (clocks.reference.empty()) clocks.reference = host.host;
  }
  if (clocks.reference.empty()) return clocks;
  const ClockOffset reference = against_local.at(clocks.reference);
  for (const auto& [host, estimate] : against_local) {
    ClockOffset relative;
    if (host != clocks.reference &&
        (__builtin_sub_overflow(estimate.offset_ns, reference.offset_ns, &relative.offset_ns) ||
         __builtin_add_overflow(estimate.error_ns, reference.error_ns, &relative.error_ns))) {
      clocks.unknown[host] = absl::StrCat("its clock is too far from ", clocks.reference, "'s");
      continue;
    }
    clocks.offsets[host] = relative;
  }
  return clocks;
}

std::string RenderHostClocks(const HostClocks& clocks) {
  std::string out;
  if (clocks.offsets.size() > 1) {
    std::vector<std::string> offsets;
    for (const auto& [host, offset] : clocks.offsets) {
      if (host == clocks.reference) continue;
      offsets.push_back(absl::StrFormat("%s %+.3f ms ± %s", host, offset.offset_ns / 1e6,
                                        FormatTimeNs(offset.error_ns)));
    }
    absl::StrAppend(&out, "clock offsets: ", absl::StrJoin(offsets, ", "), " against ",
                    clocks.reference, "\n");
  }
  if (clocks.offsets.size() + clocks.unknown.size() > 1) {
    for (const auto& [host, why] : clocks.unknown) {
      absl::StrAppend(&out, "no clock offset for ", host, " (", why,
                      "): its calls with other hosts' ranks are not compared\n");
    }
  }
  return out;
}

}  // namespace protond::view
