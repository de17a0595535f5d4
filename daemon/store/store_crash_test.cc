// Kills a writer process with SIGKILL at random moments while it commits, then checks what the
// exactly-once rule needs: the file is intact, and every aggregate agrees with the lane read
// position committed with it, which is at least the last commit the writer saw succeed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "daemon/store/store.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

constexpr uint32_t kPid = 4242;
constexpr uint64_t kStartTicks = 99;
constexpr uint32_t kNodes = 500;  // rows per commit: large enough that a kill lands mid-commit

// Commit number `i` of the writer: every node's count and lane 0's read position are `i`.
Batch WriterBatch(uint64_t i) {
  Batch batch;
  batch.sessions = {{1, "crash", 0, SessionState::kRunning, 0, 0, {}}};
  batch.processes = {{1, kPid, 0, kStartTicks, "writer", false}};
  for (uint32_t node = 1; node <= kNodes; ++node) {
    batch.nodes.push_back({1, node, node - 1, absl::StrCat("scope ", node)});
    batch.node_stats.push_back({1, node, 1, i, i * 1000, 1000, 1000});
  }
  batch.lanes = {{1, 0, i, 0, "", std::string(2048, static_cast<char>('a' + i % 26))}};
  return batch;
}

// The child: resumes after the last committed batch and commits until killed, telling the
// parent each commit number once CommitBatch has returned OK. Never returns.
[[noreturn]] void RunWriter(const std::string& path, int report_fd) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  if (!store.ok()) _exit(2);
  uint64_t last = 0;
  absl::StatusOr<std::optional<StoredProcess>> process =
      (*store)->FindLiveProcess(kPid, kStartTicks);
  if (!process.ok()) _exit(3);
  if (process->has_value() && !(*process)->lanes.empty()) last = (*process)->lanes[0].read_pos;
  for (uint64_t i = last + 1;; ++i) {
    if (!(*store)->CommitBatch(WriterBatch(i)).ok()) _exit(4);
    if (write(report_fd, &i, sizeof(i)) != sizeof(i)) _exit(5);
  }
}

// Reads commit numbers from the writer until at least `at_least` arrived (blocking) or, with
// at_least == 0, whatever is there (the pipe is non-blocking then). Returns the last one seen.
uint64_t ReadReports(int fd, uint64_t last, uint64_t at_least) {
  uint64_t value;
  while (true) {
    ssize_t got = read(fd, &value, sizeof(value));
    if (got == static_cast<ssize_t>(sizeof(value))) {
      last = value;
      if (at_least != 0 && last >= at_least) return last;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return last;  // EOF, EAGAIN or a short read (the writer was killed mid-write)
  }
}

void CheckAgreement(const std::string& path, uint64_t last_acknowledged) {
  EXPECT_EQ(testing::QueryFile(path, "PRAGMA integrity_check"), "ok");
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<StoredProcess>> process =
      (*store)->FindLiveProcess(kPid, kStartTicks);
  ASSERT_TRUE(process.ok()) << process.status();
  ASSERT_TRUE(process->has_value());
  ASSERT_EQ((*process)->lanes.size(), 1u);
  const uint64_t read_pos = (*process)->lanes[0].read_pos;
  // A commit that returned OK survives the process's death; at most one more may have landed.
  EXPECT_GE(read_pos, last_acknowledged);
  EXPECT_LE(read_pos, last_acknowledged + 1);
  absl::StatusOr<StoredTree> tree = (*store)->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->node_stats.size(), kNodes);
  for (const NodeStatsRow& row : tree->node_stats) {
    ASSERT_EQ(row.count, read_pos) << "node " << row.node_id;
    ASSERT_EQ(row.duration_ns_sum, read_pos * 1000) << "node " << row.node_id;
  }
  EXPECT_EQ((*process)->lanes[0].decoder_state,
            std::string(2048, static_cast<char>('a' + read_pos % 26)));
}

TEST(StoreCrashTest, AggregatesAndReadPositionsAgreeAfterSigkill) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  const unsigned seed = std::random_device()();
  SCOPED_TRACE(absl::StrCat("seed ", seed));
  std::mt19937 random(seed);
  uint64_t last_acknowledged = 0;

  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      RunWriter(path, fds[1]);
    }
    close(fds[1]);
    // Let a few commits land, then kill at a random moment: mid-commit, mid-checkpoint, between.
    const uint64_t wait_for = last_acknowledged + 1 + random() % 20;
    last_acknowledged = ReadReports(fds[0], last_acknowledged, wait_for);
    ASSERT_GE(last_acknowledged, wait_for) << "the writer stopped early";
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 20000));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(waitpid(child, &wait_status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(wait_status)) << "writer exited with " << WEXITSTATUS(wait_status);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    last_acknowledged = ReadReports(fds[0], last_acknowledged, 0);
    close(fds[0]);
    CheckAgreement(path, last_acknowledged);
    if (HasFatalFailure()) return;
    // The next writer resumes from what is stored, which may be one past the last report.
    last_acknowledged =
        (*(*Store::Open(path))->FindLiveProcess(kPid, kStartTicks))->lanes[0].read_pos;
  }
}

}  // namespace
}  // namespace protond::store
