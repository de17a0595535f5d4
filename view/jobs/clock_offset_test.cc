#include "view/jobs/clock_offset.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kRemoteAheadNs = 1'000'000 * kMs;  // 1000 s

// A reading whose reply came `round_trip_ns` after `sent_ns`, the remote clock read at the trip's
// middle plus `skew_ns` (where in the trip the daemon read it).
ClockSample Sample(int64_t sent_ns, int64_t round_trip_ns, int64_t skew_ns = 0) {
  return {sent_ns, sent_ns + round_trip_ns / 2 + skew_ns + kRemoteAheadNs, sent_ns + round_trip_ns};
}

TEST(ClockOffsetTest, KeepsTheSampleWithTheShortestRoundTrip) {
  // The slow samples read the remote clock late in their trips: they would be 2 ms off.
  const std::vector<ClockSample> samples = {Sample(0, 10 * kMs, 2 * kMs),
                                            Sample(20 * kMs, 100 * kUs),
                                            Sample(40 * kMs, 5 * kMs, -2 * kMs)};
  const absl::StatusOr<ClockOffset> estimate = EstimateClockOffset(samples);
  ASSERT_TRUE(estimate.ok()) << estimate.status();
  // What to add to the remote's times: it is 1000 s ahead, so the offset is negative.
  EXPECT_EQ(estimate->offset_ns, -kRemoteAheadNs);
  EXPECT_EQ(estimate->error_ns, 50 * kUs);
}

TEST(ClockOffsetTest, RoundsTheErrorUpAndSkipsRepliesBeforeTheirRequests) {
  const std::vector<ClockSample> samples = {{100, 5, 50}, {200, 7'000, 301}};
  const absl::StatusOr<ClockOffset> estimate = EstimateClockOffset(samples);
  ASSERT_TRUE(estimate.ok()) << estimate.status();
  EXPECT_EQ(estimate->offset_ns, 250 - 7'000);
  EXPECT_EQ(estimate->error_ns, 51);
}

TEST(ClockOffsetTest, RefusesNoSamplesAndUnusableOnes) {
  EXPECT_EQ(EstimateClockOffset({}).status().message(), "no clock sample");
  const std::vector<ClockSample> backwards = {{100, 5, 50}};
  EXPECT_EQ(EstimateClockOffset(backwards).status().message(),
            "none of the 1 clock samples has a round trip that ends after it began");
  const std::vector<ClockSample> absurd = {{-100, INT64_MAX, -90}};
  EXPECT_EQ(EstimateClockOffset(absurd).status().message(),
            "its clock reading 9223372036854775807 ns is too far from this host's clock");
}

std::vector<HostClockSamples> ThreeHosts() {
  std::vector<HostClockSamples> hosts;
  // node01: 2 ms behind protonctl's clock, read with a 100 us round trip.
  hosts.push_back({"node01", std::vector<ClockSample>{{0, -2 * kMs + 50 * kUs, 100 * kUs}}});
  // node02: 1000 s ahead, read with a 40 us round trip.
  hosts.push_back(
      {"node02", std::vector<ClockSample>{{kMs, kMs + 20 * kUs + kRemoteAheadNs, kMs + 40 * kUs}}});
  hosts.push_back({"node03", absl::UnimplementedError("GetClock is not served here")});
  return hosts;
}

TEST(ClockOffsetTest, RelatesEachHostToTheFirstThatAnswered) {
  const HostClocks clocks = RelateHostClocks(ThreeHosts());
  EXPECT_EQ(clocks.reference, "node01");
  ASSERT_EQ(clocks.offsets.size(), 2u);
  EXPECT_EQ(clocks.offsets.at("node01").offset_ns, 0);
  EXPECT_EQ(clocks.offsets.at("node01").error_ns, 0);
  // node02's times less 1000 s and 2 ms are node01's; the error is both round trips' halves.
  EXPECT_EQ(clocks.offsets.at("node02").offset_ns, -kRemoteAheadNs - 2 * kMs);
  EXPECT_EQ(clocks.offsets.at("node02").error_ns, 70 * kUs);
  EXPECT_EQ(clocks.unknown.at("node03"), "GetClock is not served here");
  EXPECT_EQ(clocks.MaxErrorNs(), 70 * kUs);
  const MatchOptions options = clocks.ToMatchOptions();
  EXPECT_EQ(options.clock_offset_ns,
            (std::map<std::string, int64_t>{{"node01", 0}, {"node02", -kRemoteAheadNs - 2 * kMs}}));
  EXPECT_EQ(RenderHostClocks(clocks),
            "clock offsets: node02 -1000002.000 ms ± 0.070 ms against node01\n"
            "no clock offset for node03 (GetClock is not served here): its calls with other "
            "hosts' ranks are not compared\n");
}

TEST(ClockOffsetTest, AHostWithoutSamplesIsNoReference) {
  std::vector<HostClockSamples> hosts = ThreeHosts();
  std::swap(hosts[0], hosts[2]);  // node03 first
  hosts[1].samples = std::vector<ClockSample>{};
  const HostClocks clocks = RelateHostClocks(hosts);
  EXPECT_EQ(clocks.reference, "node01");
  EXPECT_EQ(clocks.unknown.at("node02"), "no clock sample");
  EXPECT_EQ(clocks.MaxErrorNs(), 0);
  EXPECT_EQ(RenderHostClocks(clocks),
            "no clock offset for node02 (no clock sample): its calls with other hosts' ranks are "
            "not compared\n"
            "no clock offset for node03 (GetClock is not served here): its calls with other "
            "hosts' ranks are not compared\n");
}

TEST(ClockOffsetTest, OneHostNeedsNoOffset) {
  std::vector<HostClockSamples> hosts = ThreeHosts();
  hosts.resize(1);
  const HostClocks clocks = RelateHostClocks(hosts);
  EXPECT_EQ(clocks.reference, "node01");
  EXPECT_EQ(RenderHostClocks(clocks), "");
}

}  // namespace
}  // namespace protond::view
