#include "cli/follow.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::ElementsAre;

// Frames "1", "2", ... recording until `last`.
struct CountingView {
  int last;
  int shown = 0;
  absl::StatusOr<FollowFrame> Next() {
    ++shown;
    return FollowFrame{std::to_string(shown), shown < last};
  }
};

TEST(FollowTest, RedrawsUntilAFrameIsNoLongerRecordingAndShowsThatOneLast) {
  CountingView view{3};
  std::vector<std::string> frames;
  const absl::Status followed = FollowFrames(
      absl::Milliseconds(1), [&] { return view.Next(); }, [] { return true; },
      [&](const std::string& frame) { frames.push_back(frame); });
  EXPECT_TRUE(followed.ok()) << followed;
  EXPECT_THAT(frames, ElementsAre("1", "2", "3"));
}

TEST(FollowTest, StopsWhenAskedWithoutAnotherFrame) {
  CountingView view{100};
  std::vector<std::string> frames;
  int asked = 0;
  const absl::Status followed = FollowFrames(
      absl::Milliseconds(1), [&] { return view.Next(); }, [&] { return ++asked < 2; },
      [&](const std::string& frame) { frames.push_back(frame); });
  EXPECT_TRUE(followed.ok()) << followed;
  EXPECT_THAT(frames, ElementsAre("1"));
}

TEST(FollowTest, AnErrorEndsItWithThatError) {
  int calls = 0;
  std::vector<std::string> frames;
  const absl::Status followed = FollowFrames(
      absl::Milliseconds(1),
      [&]() -> absl::StatusOr<FollowFrame> {
        if (++calls == 2) return absl::NotFoundError("session 7 is gone");
        return FollowFrame{"first", true};
      },
      [] { return true; }, [&](const std::string& frame) { frames.push_back(frame); });
  EXPECT_EQ(followed, absl::NotFoundError("session 7 is gone"));
  EXPECT_THAT(frames, ElementsAre("first"));
}

}  // namespace
}  // namespace protond::cli
