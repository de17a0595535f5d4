#include "common/clock/tsc_clock.h"

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace protond::clock {
namespace {

constexpr std::string_view kFlags =
    "flags\t\t: fpu vme tsc msr constant_tsc rep_good nopl nonstop_tsc cpuid tsc_known_freq\n";

TEST(TscIsInvariantTest, NeedsBothFlagsAndTheTscClocksource) {
  std::string why;
  EXPECT_TRUE(TscIsInvariant(kFlags, "tsc\n", &why)) << why;
  EXPECT_FALSE(TscIsInvariant("flags\t: fpu tsc constant_tsc\n", "tsc\n", &why));
  EXPECT_EQ(why, "the CPU flags lack nonstop_tsc");
  EXPECT_FALSE(TscIsInvariant("flags\t: nonstop_tsc\n", "tsc\n", &why));
  EXPECT_EQ(why, "the CPU flags lack constant_tsc");
  EXPECT_FALSE(TscIsInvariant(kFlags, "kvm-clock\n", &why));
  EXPECT_EQ(why, "the kernel's clocksource is kvm-clock, not tsc");
  EXPECT_FALSE(TscIsInvariant(kFlags, "", &why));
  EXPECT_EQ(why, "the kernel's clocksource is unknown, not tsc");
  // A flag is a whole word: "constant_tsc_x" is not constant_tsc.
  EXPECT_FALSE(TscIsInvariant("flags: constant_tsc_x nonstop_tsc\n", "tsc", &why));
}

TEST(TakeClockPairTest, TheTscAdvancesWithTheClock) {
  if (!kHasTsc) GTEST_SKIP() << "no TSC on this architecture";
  const ClockPair first = TakeClockPair();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const ClockPair second = TakeClockPair();
  ASSERT_GT(second.monotonic_ns, first.monotonic_ns + 19'000'000);
  ASSERT_GT(second.tsc, first.tsc);
  // Any TSC of this century ticks between 100 MHz and 10 GHz.
  const double ticks_per_ns = static_cast<double>(second.tsc - first.tsc) /
                              static_cast<double>(second.monotonic_ns - first.monotonic_ns);
  EXPECT_GT(ticks_per_ns, 0.1);
  EXPECT_LT(ticks_per_ns, 10.0);
}

}  // namespace
}  // namespace protond::clock
