#include "daemon/ingest/clock_calibration.h"

#include "gtest/gtest.h"

namespace protond::ingest {
namespace {

// A 3 GHz TSC that read 1000 when CLOCK_MONOTONIC read 5 s.
constexpr clock::ClockPair kStart{1000, 5'000'000'000};
constexpr uint64_t TscAt(uint64_t ns) { return kStart.tsc + 3 * (ns - kStart.monotonic_ns); }
constexpr clock::ClockPair PairAt(uint64_t ns) { return {TscAt(ns), ns}; }
constexpr HostTsc kHost{PairAt(5'500'000'000), 3.0};

TEST(ClockCalibrationTest, InterpolatesBetweenThePairsAroundATimestamp) {
  ClockCalibration calibration;
  calibration.Add(kStart);
  // This one's clock ran 10 us slow over the second: the line bends at the pairs.
  calibration.Add({TscAt(6'000'000'000), 5'999'990'000});
  EXPECT_EQ(calibration.ToNs(kStart.tsc), 5'000'000'000u);
  EXPECT_EQ(calibration.ToNs(TscAt(5'500'000'000)), 5'499'995'000u);
  EXPECT_EQ(calibration.ToNs(TscAt(6'000'000'000)), 5'999'990'000u);
  EXPECT_EQ(calibration.Summary(), "");
}

TEST(ClockCalibrationTest, ExtrapolatesAtProtondsOwnRate) {
  ClockCalibration calibration;
  calibration.SetHost(kHost);
  calibration.Add(kStart);
  EXPECT_EQ(calibration.ToNs(TscAt(5'000'000'300)), 5'000'000'300u);  // after the last pair
  EXPECT_EQ(calibration.ToNs(kStart.tsc - 900), 4'999'999'700u);      // before the first
  EXPECT_EQ(calibration.stats().uncalibrated, 0u);
}

TEST(ClockCalibrationTest, WithoutProtondsRateThePairsGiveIt) {
  ClockCalibration calibration;
  calibration.Add(kStart);
  calibration.Add(PairAt(5'010'000'000));
  EXPECT_EQ(calibration.ToNs(TscAt(5'020'000'000)), 5'020'000'000u);
}

TEST(ClockCalibrationTest, WithNoPairItConvertsWithProtondsOwnClock) {
  ClockCalibration calibration;
  calibration.SetHost(kHost);
  EXPECT_EQ(calibration.ToNs(TscAt(5'600'000'000)), 5'600'000'000u);
}

TEST(ClockCalibrationTest, WhatCannotBeConvertedIsCountedAndSaid) {
  ClockCalibration calibration;
  EXPECT_EQ(calibration.ToNs(123), std::nullopt);  // nothing at all
  calibration.Add(kStart);
  EXPECT_EQ(calibration.ToNs(kStart.tsc), kStart.monotonic_ns);  // exactly at the one pair
  EXPECT_EQ(calibration.ToNs(kStart.tsc + 10), std::nullopt);    // one pair, no rate
  EXPECT_EQ(calibration.stats().uncalibrated, 2u);
  EXPECT_EQ(calibration.Summary(),
            "2 TSC timestamps with no clock pair to convert them (stored as 0 ns)");
}

TEST(ClockCalibrationTest, Malicious_PairsOutOfOrderAreIgnored) {
  ClockCalibration calibration;
  calibration.Add(kStart);
  calibration.Add(PairAt(6'000'000'000));
  // A later TSC with an earlier time, and an earlier TSC with a later time.
  calibration.Add({TscAt(5'500'000'000), 4'000'000'000});
  calibration.Add({kStart.tsc - 1, 5'100'000'000});
  EXPECT_EQ(calibration.stats().out_of_order, 2u);
  EXPECT_EQ(calibration.ToNs(TscAt(5'500'000'000)), 5'500'000'000u);  // as if they never came
  EXPECT_EQ(calibration.Summary(), "2 clock pairs out of order (ignored)");
}

TEST(ClockCalibrationTest, Malicious_ARateOutsideAnyTscIsIgnored) {
  ClockCalibration calibration;
  calibration.Add(kStart);
  // 30 ticks per ns (30 GHz) to the pair before, and 300 ticks in a second to the one after.
  calibration.Add({kStart.tsc + 30'000'000'000, 6'000'000'000});
  calibration.Add({kStart.tsc - 300, 4'000'000'000});
  EXPECT_EQ(calibration.stats().rate_out_of_range, 2u);
  EXPECT_EQ(calibration.Summary(),
            "2 clock pairs at 3e-07 TSC ticks per ns, outside 0.1-10 (ignored)");
  EXPECT_EQ(calibration.ToNs(kStart.tsc + 3'000), std::nullopt);  // still a single pair
}

TEST(ClockCalibrationTest, Malicious_PairsOffTheLineAreCountedAndKept) {
  ClockCalibration calibration;
  calibration.SetHost(kHost);
  calibration.Add(kStart);
  // 2 ms late, half a second from protond's own pair: beyond 20 us + 0.1 % of 0.5 s.
  calibration.Add({TscAt(6'000'000'000), 6'002'000'000});
  EXPECT_EQ(calibration.stats().disagreeing, 1u);
  EXPECT_EQ(calibration.stats().worst_disagreement_ns, 2'000'000u);
  EXPECT_EQ(calibration.Summary(), "1 clock pairs off the TSC's line by up to 2000.0 us (kept)");
  EXPECT_EQ(calibration.ToNs(TscAt(6'000'000'000)), 6'002'000'000u);  // converted as it says
}

TEST(ClockCalibrationTest, PairsWithinTheToleranceAgree) {
  ClockCalibration calibration;
  calibration.SetHost(kHost);
  calibration.Add(kStart);
  calibration.Add({TscAt(6'000'000'000), 6'000'015'000});  // 15 us late
  EXPECT_EQ(calibration.stats().disagreeing, 0u);
  EXPECT_EQ(calibration.Summary(), "");
}

TEST(ClockCalibrationTest, PairsCloserThanAMillisecondAreCheckedNotKept) {
  ClockCalibration calibration;
  calibration.Add(kStart);
  calibration.Add(PairAt(5'000'500'000));
  calibration.Add({kStart.tsc + 10, 4'000'000'000});  // out of order: checked all the same
  EXPECT_EQ(calibration.stats().out_of_order, 1u);
  // Still one pair, so no rate.
  EXPECT_EQ(calibration.ToNs(TscAt(5'000'100'000)), std::nullopt);
}

TEST(HostTscClockTest, MeasuresThisMachinesRateWhereTheTscIsInvariant) {
  std::string why_not;
  if (!clock::TscIsInvariantHere(&why_not)) GTEST_SKIP() << why_not;
  HostTscClock host;
  const HostTsc measured = host.Measure();  // waits for 10 ms to have passed
  EXPECT_GT(measured.ticks_per_ns, ClockCalibration::kMinTicksPerNs);
  EXPECT_LT(measured.ticks_per_ns, ClockCalibration::kMaxTicksPerNs);
  // Its own pair lies on its own line.
  ClockCalibration calibration;
  calibration.SetHost(measured);
  calibration.Add(clock::TakeClockPair());
  EXPECT_EQ(calibration.Summary(), "");
}

}  // namespace
}  // namespace protond::ingest
