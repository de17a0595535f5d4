#include "common/mode/session_mode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace protond::mode {
namespace {

using ::testing::HasSubstr;

TEST(SessionModeTest, EmptyIsNoSampling) {
  absl::StatusOr<SessionMode> mode = ParseSessionMode("");
  ASSERT_TRUE(mode.ok());
  EXPECT_FALSE(mode->pc_sampling);
  EXPECT_EQ(SessionModeText(*mode), "");
}

TEST(SessionModeTest, PcSamplingWithoutIntervalKeepsCuptisDefault) {
  absl::StatusOr<SessionMode> mode = ParseSessionMode("pcsampling");
  ASSERT_TRUE(mode.ok());
  EXPECT_TRUE(mode->pc_sampling);
  EXPECT_EQ(mode->pc_sampling_period_log2, 0u);
  EXPECT_EQ(SessionModeText(*mode), "pcsampling");
}

TEST(SessionModeTest, IntervalRoundsToTheNearestPowerOfTwo) {
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=1000")->pc_sampling_period_log2, 10u);
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=1500")->pc_sampling_period_log2, 10u);
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=1600")->pc_sampling_period_log2, 11u);
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=4096")->pc_sampling_period_log2, 12u);
}

TEST(SessionModeTest, IntervalIsClampedToCuptisRange) {
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=1")->pc_sampling_period_log2, 5u);
  EXPECT_EQ(ParseSessionMode("pcsampling:interval=18446744073709551615")->pc_sampling_period_log2,
            31u);
}

TEST(SessionModeTest, ProtonsPrintedFormIsAccepted) {
  absl::StatusOr<SessionMode> mode = ParseSessionMode("pc_sampling:interval=1000");
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(SessionModeText(*mode), "pcsampling:interval=1024");
  EXPECT_EQ(ParseSessionMode(SessionModeText(*mode)).value(), *mode);
}

TEST(SessionModeTest, BadTextIsNamed) {
  EXPECT_THAT(ParseSessionMode("periodic_flushing").status().message(),
              HasSubstr("unknown mode 'periodic_flushing'"));
  EXPECT_THAT(ParseSessionMode("pcsampling:rate=3").status().message(),
              HasSubstr("unknown pcsampling option 'rate=3'"));
  EXPECT_THAT(ParseSessionMode("pcsampling:interval=0").status().message(),
              HasSubstr("positive integer"));
  EXPECT_THAT(ParseSessionMode("pcsampling:interval=-4").status().message(), HasSubstr("not '-4'"));
  EXPECT_THAT(ParseSessionMode("pcsampling:interval=").status().message(), HasSubstr("not ''"));
}

}  // namespace
}  // namespace protond::mode
