#include "daemon/registry/process_registry.h"

#include <chrono>
#include <future>
#include <thread>

#include "gtest/gtest.h"

namespace protond::registry {
namespace {

using std::chrono::milliseconds;

store::ProcessRow Row(uint64_t process_id, uint32_t pid, uint64_t start_ticks = 7) {
  store::ProcessRow row;
  row.process_id = process_id;
  row.pid = pid;
  row.uid = 1000;
  row.start_time_ticks = start_ticks;
  row.command = "python train.py";
  return row;
}

v1::ControlCommand StopCommand(uint64_t session_id) {
  v1::ControlCommand command;
  command.mutable_stop_recording()->set_session_id(session_id);
  return command;
}

v1::CommandResult Answer(uint64_t process_id, uint64_t command_id) {
  v1::CommandResult result;
  result.set_process_id(process_id);
  result.set_command_id(command_id);
  result.set_ok(true);
  return result;
}

TEST(ProcessRegistryTest, AProcessIsFoundByIdAndByPidAndStartTime) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "0,1");
  ASSERT_NE(registry.Find(1), nullptr);
  EXPECT_TRUE(registry.Find(1)->connected);
  EXPECT_EQ(registry.Find(1)->cuda_visible_devices, "0,1");
  EXPECT_EQ(registry.FindLive(100, 7), registry.Find(1));
  EXPECT_EQ(registry.FindLive(100, 8), nullptr) << "a reused pid is another process";
  EXPECT_EQ(registry.Find(2), nullptr);
  EXPECT_EQ(registry.ConnectedCount(), 1u);
}

// Readers hold what they found while the registry goes on: a change makes a new copy.
TEST(ProcessRegistryTest, WhatWasFoundDoesNotChangeUnderItsReader) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  const std::shared_ptr<const Process> before = registry.Find(1);
  const Directory snapshot = registry.Snapshot();
  registry.Disconnect(1);
  registry.MarkExited(1);
  registry.NoteStartAnswer(1, "");
  EXPECT_TRUE(before->connected);
  EXPECT_FALSE(before->row.exited);
  EXPECT_TRUE(snapshot.at(1)->connected);
  EXPECT_FALSE(registry.Find(1)->connected);
  EXPECT_TRUE(registry.Find(1)->row.exited);
  EXPECT_TRUE(registry.Find(1)->traced);
  EXPECT_EQ(registry.ConnectedCount(), 0u);
}

TEST(ProcessRegistryTest, PushedCommandsReachTheConnectionInOrderEachNumbered) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  registry.Push(1, StopCommand(5));
  registry.Push(1, StopCommand(6));
  const std::optional<v1::ControlCommand> first = registry.NextCommand(1, milliseconds(0));
  const std::optional<v1::ControlCommand> second = registry.NextCommand(1, milliseconds(0));
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->stop_recording().session_id(), 5u);
  EXPECT_EQ(second->stop_recording().session_id(), 6u);
  EXPECT_NE(first->command_id(), second->command_id());
  EXPECT_FALSE(registry.NextCommand(1, milliseconds(0)));
  EXPECT_FALSE(registry.NextCommand(9, milliseconds(0))) << "no such process";
}

TEST(ProcessRegistryTest, AWaitEndsWhenEveryProcessHasAnswered) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  registry.Register(Row(2, 200), "");
  const std::vector<PushedCommand> pushed = registry.PushAwaited({1, 2}, StopCommand(3));
  ASSERT_EQ(pushed.size(), 2u);
  auto answering = std::async(std::launch::async, [&] {
    for (uint64_t id : {1, 2}) {
      const std::optional<v1::ControlCommand> command =
          registry.NextCommand(id, milliseconds(5000));
      ASSERT_TRUE(command);
      ASSERT_TRUE(registry.Acknowledge(id * 100, Answer(id, command->command_id())).ok());
    }
  });
  EXPECT_TRUE(registry.AwaitAnswers(pushed, milliseconds(10000)));
  answering.get();
  const std::map<uint64_t, v1::CommandResult> answers = registry.TakeAnswers(pushed);
  EXPECT_EQ(answers.size(), 2u);
  EXPECT_TRUE(answers.at(1).ok());
}

TEST(ProcessRegistryTest, AnAnswerFromAnotherProcessIsRefused) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  const std::vector<PushedCommand> pushed = registry.PushAwaited({1}, StopCommand(3));
  const absl::Status refused = registry.Acknowledge(999, Answer(1, pushed[0].command_id));
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(), "process 1 is not the caller's");
  EXPECT_FALSE(registry.AwaitAnswers(pushed, milliseconds(0)));
}

// A process whose connection ends will not answer: nobody waits for the timeout.
TEST(ProcessRegistryTest, AWaitEndsWhenAProcessDisconnects) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  const std::vector<PushedCommand> pushed = registry.PushAwaited({1}, StopCommand(3));
  std::thread disconnect([&] {
    std::this_thread::sleep_for(milliseconds(20));
    registry.Disconnect(1);
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(registry.AwaitAnswers(pushed, milliseconds(60000)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  disconnect.join();
  EXPECT_TRUE(registry.TakeAnswers(pushed).empty());
}

// Given up on, a command still queued is withdrawn: it must never arrive late, and a late answer
// to it is ignored.
TEST(ProcessRegistryTest, ACommandGivenUpOnIsWithdrawnAndItsLateAnswerIgnored) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  const std::vector<PushedCommand> pushed = registry.PushAwaited({1}, StopCommand(3));
  EXPECT_FALSE(registry.AwaitAnswers(pushed, milliseconds(1)));
  EXPECT_TRUE(registry.TakeAnswers(pushed).empty());
  EXPECT_FALSE(registry.NextCommand(1, milliseconds(0)));
  EXPECT_TRUE(registry.Acknowledge(100, Answer(1, pushed[0].command_id)).ok());
}

TEST(ProcessRegistryTest, RegisteringAgainKeepsQueuedCommandsAndTakesTheNewJob) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  registry.Push(1, StopCommand(3));
  registry.Disconnect(1);
  store::ProcessRow again = Row(1, 100);
  again.job.slurm_job_id = "77";
  registry.Register(again, "2");
  EXPECT_TRUE(registry.Find(1)->connected);
  EXPECT_EQ(registry.Find(1)->row.job.name(), "77");
  EXPECT_EQ(JobToProto(*registry.Find(1)).cuda_visible_devices(), "2");
  EXPECT_TRUE(registry.NextCommand(1, milliseconds(0)));
}

TEST(ProcessRegistryTest, CloseEndsAWaitForTheNextCommand) {
  ProcessRegistry registry;
  registry.Register(Row(1, 100), "");
  auto waiting =
      std::async(std::launch::async, [&] { return registry.NextCommand(1, milliseconds(60000)); });
  std::this_thread::sleep_for(milliseconds(20));
  registry.Close();
  EXPECT_EQ(waiting.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_FALSE(waiting.get());
}

}  // namespace
}  // namespace protond::registry
