#include "daemon/ingest/clock_calibration.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::ingest {
namespace {

constexpr uint64_t kHostBaselineNs = 10'000'000;

double TicksPerNs(const clock::ClockPair& a, const clock::ClockPair& b) {
  return static_cast<double>(b.tsc - a.tsc) / static_cast<double>(b.monotonic_ns - a.monotonic_ns);
}

uint64_t Distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

// `anchor`'s time moved by the ticks from it to `tsc` (either way) at `ns_per_tick`, rounded.
uint64_t Extrapolate(const clock::ClockPair& anchor, uint64_t tsc, double ns_per_tick) {
  const double ticks = tsc >= anchor.tsc ? static_cast<double>(tsc - anchor.tsc)
                                         : -static_cast<double>(anchor.tsc - tsc);
  const double ns = static_cast<double>(anchor.monotonic_ns) + ticks * ns_per_tick;
  if (ns <= 0) return 0;
  if (ns >= 1.8e19) return UINT64_MAX;
  return static_cast<uint64_t>(ns + 0.5);  // llround would be a libm call per timestamp
}

}  // namespace

HostTscClock::HostTscClock() {
  std::string why_not;
  usable_ = clock::TscIsInvariantHere(&why_not);
  if (usable_) first_ = clock::TakeClockPair();
}

HostTsc HostTscClock::Measure() {
  if (!usable_) return {};
  // Once, in a daemon's first cycle at the latest: a rate measured over less would be too rough.
  const uint64_t since_first = clock::MonotonicNs() - first_.monotonic_ns;
  if (since_first < kHostBaselineNs) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kHostBaselineNs - since_first));
  }
  HostTsc host{clock::TakeClockPair(), 0};
  if (host.pair.tsc > first_.tsc && host.pair.monotonic_ns > first_.monotonic_ns) {
    host.ticks_per_ns = TicksPerNs(first_, host.pair);
  }
  return host;
}

bool ClockCalibration::Disagrees(const clock::ClockPair& anchor, double ticks_per_ns,
                                 const clock::ClockPair& pair) {
  const uint64_t expected = Extrapolate(anchor, pair.tsc, 1 / ticks_per_ns);
  const uint64_t off = Distance(expected, pair.monotonic_ns);
  const uint64_t tolerance =
      kToleranceNs +
      static_cast<uint64_t>(kRateTolerance *
                            static_cast<double>(Distance(pair.monotonic_ns, anchor.monotonic_ns)));
  if (off <= tolerance) return false;
  stats_.disagreeing++;
  stats_.worst_disagreement_ns = std::max(stats_.worst_disagreement_ns, off);
  return true;
}

void ClockCalibration::Add(clock::ClockPair pair) {
  auto next =
      std::upper_bound(pairs_.begin(), pairs_.end(), pair.tsc,
                       [](uint64_t tsc, const clock::ClockPair& known) { return tsc < known.tsc; });
  const clock::ClockPair* before = next != pairs_.begin() ? &*(next - 1) : nullptr;
  const clock::ClockPair* after = next != pairs_.end() ? &*next : nullptr;
  if (before != nullptr && before->tsc == pair.tsc) return;  // the same pair again
  if ((before != nullptr && pair.monotonic_ns < before->monotonic_ns) ||
      (after != nullptr && pair.monotonic_ns > after->monotonic_ns)) {
    stats_.out_of_order++;
    return;
  }
  for (const clock::ClockPair* neighbor : {before, after}) {
    if (neighbor == nullptr ||
        Distance(neighbor->monotonic_ns, pair.monotonic_ns) < kMinSpacingNs) {
      continue;
    }
    const double rate = neighbor == before ? TicksPerNs(*before, pair) : TicksPerNs(pair, *after);
    if (rate < kMinTicksPerNs || rate > kMaxTicksPerNs) {
      stats_.rate_out_of_range++;
      stats_.worst_rate = rate;
      return;
    }
  }
  // Checked against the line it should lie on; kept either way, since which of two disagreeing
  // pairs is wrong cannot be told (a TSC that jumped makes the later ones right).
  if (host_.ticks_per_ns > 0) {
    if (!Disagrees(host_.pair, host_.ticks_per_ns, pair) && before != nullptr) {
      Disagrees(*before, host_.ticks_per_ns, pair);
    }
  } else if (before != nullptr && Rate() > 0) {
    Disagrees(*before, Rate(), pair);
  }
  if ((before != nullptr && pair.monotonic_ns - before->monotonic_ns < kMinSpacingNs) ||
      (after != nullptr && after->monotonic_ns - pair.monotonic_ns < kMinSpacingNs)) {
    return;
  }
  pairs_.insert(next, pair);
  if (pairs_.size() > kMaxPairs) pairs_.erase(pairs_.begin());
  line_.valid = false;
}

double ClockCalibration::Rate() const {
  if (host_.ticks_per_ns > 0) return host_.ticks_per_ns;
  if (pairs_.size() < 2 ||
      pairs_.back().monotonic_ns - pairs_.front().monotonic_ns < kMinSpacingNs) {
    return 0;
  }
  return TicksPerNs(pairs_.front(), pairs_.back());
}

size_t ClockCalibration::SegmentOf(uint64_t tsc) {
  const size_t n = pairs_.size();
  const size_t c = last_segment_;
  if (c < n && pairs_[c].tsc <= tsc && (c + 1 == n || tsc < pairs_[c + 1].tsc)) return c;
  auto next = std::upper_bound(
      pairs_.begin(), pairs_.end(), tsc,
      [](uint64_t value, const clock::ClockPair& known) { return value < known.tsc; });
  if (next == pairs_.begin()) return n;
  last_segment_ = static_cast<size_t>(next - pairs_.begin()) - 1;
  return last_segment_;
}

ClockCalibration::Line ClockCalibration::LineOf(uint64_t tsc) {
  const size_t segment = SegmentOf(tsc);
  if (line_.valid && line_.segment == segment) return line_;
  Line line{segment, {}, 0, true};
  if (segment + 1 < pairs_.size()) {
    const clock::ClockPair& a = pairs_[segment];
    const clock::ClockPair& b = pairs_[segment + 1];
    line.anchor = a;
    line.ns_per_tick =
        static_cast<double>(b.monotonic_ns - a.monotonic_ns) / static_cast<double>(b.tsc - a.tsc);
  } else {
    const double rate = Rate();
    line.anchor = pairs_.empty()            ? host_.pair
                  : segment < pairs_.size() ? pairs_[segment]
                                            : pairs_.front();
    line.ns_per_tick = rate > 0 ? 1 / rate : 0;
  }
  line_ = line;
  return line;
}

std::optional<uint64_t> ClockCalibration::ToNs(uint64_t tsc) {
  const Line line = LineOf(tsc);
  if (line.ns_per_tick > 0) return Extrapolate(line.anchor, tsc, line.ns_per_tick);
  // One pair and no rate: only a TSC exactly at the pair has a time.
  if (!pairs_.empty() && line.anchor.tsc == tsc) return line.anchor.monotonic_ns;
  stats_.uncalibrated++;
  return std::nullopt;
}

std::string ClockCalibration::Summary() const {
  std::string summary;
  auto add = [&summary](uint64_t count, const std::string& what) {
    if (count == 0) return;
    absl::StrAppend(&summary, summary.empty() ? "" : ", ", count, " ", what);
  };
  add(stats_.out_of_order, "clock pairs out of order (ignored)");
  add(stats_.rate_out_of_range,
      absl::StrFormat("clock pairs at %.3g TSC ticks per ns, outside %g-%g (ignored)",
                      stats_.worst_rate, kMinTicksPerNs, kMaxTicksPerNs));
  add(stats_.disagreeing, absl::StrFormat("clock pairs off the TSC's line by up to %.1f us (kept)",
                                          static_cast<double>(stats_.worst_disagreement_ns) / 1e3));
  add(stats_.uncalibrated, "TSC timestamps with no clock pair to convert them (stored as 0 ns)");
  return summary;
}

}  // namespace protond::ingest
