// The time-stamp counter (TSC) as a clock, and the pairs that tie it to CLOCK_MONOTONIC. The shim
// stamps scope records with it where it may stand for CLOCK_MONOTONIC (x86-64, an invariant TSC
// that the kernel itself keeps time with); the daemon reads it too, to check the shim's pairs and
// to convert between pairs. Reading the TSC is one instruction; everything else here is for set-up
// and calibration, off the hot path. Thread-safe.
#ifndef PROTOND_COMMON_CLOCK_TSC_CLOCK_H_
#define PROTOND_COMMON_CLOCK_TSC_CLOCK_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace protond::clock {

// One TSC value and the CLOCK_MONOTONIC time (ns) read at the same moment (up to a few tens of ns).
struct ClockPair {
  uint64_t tsc = 0;
  uint64_t monotonic_ns = 0;
};

#if defined(__x86_64__)
inline constexpr bool kHasTsc = true;
inline uint64_t ReadTsc() { return __builtin_ia32_rdtsc(); }
#else
inline constexpr bool kHasTsc = false;
inline uint64_t ReadTsc() { return 0; }
#endif

uint64_t MonotonicNs();

// Whether the TSC ticks at one rate whatever the CPU does (the flags constant_tsc and nonstop_tsc
// in `cpu_flags`, a "flags" line of /proc/cpuinfo) and the kernel keeps CLOCK_MONOTONIC with it
// (`clocksource`, the contents of .../clocksource0/current_clocksource): then a TSC value maps to
// CLOCK_MONOTONIC by a rate and an offset that change only as NTP slews the clock. When not, `why`
// says why ("the kernel's clocksource is kvm-clock, not tsc").
bool TscIsInvariant(std::string_view cpu_flags, std::string_view clocksource, std::string* why);

// The same for this machine (reads /proc/cpuinfo up to its first "flags" line and sysfs); false on
// other architectures than x86-64.
bool TscIsInvariantHere(std::string* why);

// A pair whose two reads lie as close together as the best of a few tries gives: the TSC is read
// before and after the clock, and the middle taken.
ClockPair TakeClockPair();

}  // namespace protond::clock

#endif  // PROTOND_COMMON_CLOCK_TSC_CLOCK_H_
