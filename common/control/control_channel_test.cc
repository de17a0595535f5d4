#include "common/control/control_channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "protond.pb.h"

namespace protond::control {
namespace {

class ControlChannelTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int fds_[2] = {-1, -1};
};

TEST_F(ControlChannelTest, FramesRoundTripAndACloseBetweenFramesEndsTheStream) {
  v1::ControlCommand command;
  command.set_command_id(7);
  command.mutable_start_recording()->set_session_id(42);
  ASSERT_TRUE(WriteFrame(fds_[1], command).ok());
  ASSERT_TRUE(WriteFrame(fds_[1], v1::ControlCommand()).ok());  // an empty message: 0 bytes
  close(fds_[1]);
  fds_[1] = -1;
  v1::ControlCommand read;
  EXPECT_EQ(*ReadFrame(fds_[0], &read), true);
  EXPECT_EQ(read.command_id(), 7u);
  EXPECT_EQ(read.start_recording().session_id(), 42u);
  EXPECT_EQ(*ReadFrame(fds_[0], &read), true);
  EXPECT_EQ(read.command_case(), v1::ControlCommand::COMMAND_NOT_SET);
  EXPECT_EQ(*ReadFrame(fds_[0], &read), false);
}

TEST_F(ControlChannelTest, Malicious_CutOversizedAndGarbageFramesAreErrors) {
  const std::string oversized("\xff\xff\xff\x7f", 4);
  ASSERT_EQ(write(fds_[1], oversized.data(), oversized.size()), 4);
  v1::ControlCommand read;
  EXPECT_EQ(ReadFrame(fds_[0], &read).status().message(),
            "control frame of 2147483647 bytes, more than 1048576");
  const std::string garbage("\x02\x00\x00\x00\xff\xff", 6);
  ASSERT_EQ(write(fds_[1], garbage.data(), garbage.size()), 6);
  EXPECT_EQ(ReadFrame(fds_[0], &read).status().message(),
            "a control frame is not the message expected");
  const std::string cut("\x10\x00\x00\x00\x08", 5);
  ASSERT_EQ(write(fds_[1], cut.data(), cut.size()), 5);
  close(fds_[1]);
  fds_[1] = -1;
  EXPECT_EQ(ReadFrame(fds_[0], &read).status().message(), "the control connection cut a frame");
}

}  // namespace
}  // namespace protond::control
