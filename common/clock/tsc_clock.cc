#include "common/clock/tsc_clock.h"

#include <time.h>

#include <cstdio>
#include <cstring>

namespace protond::clock {
namespace {

bool HasFlag(std::string_view flags, std::string_view flag) {
  size_t start = 0;
  while (start < flags.size()) {
    size_t end = flags.find_first_of(" \t\n", start);
    if (end == std::string_view::npos) end = flags.size();
    if (flags.substr(start, end - start) == flag) return true;
    start = end + 1;
  }
  return false;
}

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return text;
}

// The first line of `path` that starts with `prefix`, or "" (a plain stdio read: no allocation
// beyond the caller's string, and only as far as that line).
std::string FirstLineStartingWith(const char* path, std::string_view prefix) {
  FILE* file = std::fopen(path, "re");
  if (file == nullptr) return "";
  std::string found;
  char buffer[4096];
  bool line_start = true;
  bool in_match = false;
  while (std::fgets(buffer, sizeof(buffer), file) != nullptr) {
    const std::string_view piece(buffer);
    if (line_start && std::string_view(buffer).substr(0, prefix.size()) == prefix) in_match = true;
    if (in_match) found.append(piece);
    line_start = !piece.empty() && piece.back() == '\n';
    if (in_match && line_start) break;
  }
  std::fclose(file);
  return found;
}

}  // namespace

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

bool TscIsInvariant(std::string_view cpu_flags, std::string_view clocksource, std::string* why) {
  for (std::string_view flag : {"constant_tsc", "nonstop_tsc"}) {
    if (!HasFlag(cpu_flags, flag)) {
      *why = "the CPU flags lack " + std::string(flag);
      return false;
    }
  }
  if (Trimmed(clocksource) != "tsc") {
    *why = "the kernel's clocksource is " +
           (clocksource.empty() ? std::string("unknown") : std::string(Trimmed(clocksource))) +
           ", not tsc";
    return false;
  }
  return true;
}

bool TscIsInvariantHere(std::string* why) {
  if (!kHasTsc) {
    *why = "this is not an x86-64 machine";
    return false;
  }
  return TscIsInvariant(
      FirstLineStartingWith("/proc/cpuinfo", "flags"),
      FirstLineStartingWith("/sys/devices/system/clocksource/clocksource0/current_clocksource", ""),
      why);
}

ClockPair TakeClockPair() {
  ClockPair best;
  uint64_t best_spread = UINT64_MAX;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const uint64_t before = ReadTsc();
    const uint64_t ns = MonotonicNs();
    const uint64_t after = ReadTsc();
    if (after - before < best_spread) {
      best_spread = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

}  // namespace protond::clock
