#include "daemon/store/store_lock.h"

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

// Issue 27: two daemons shared one state directory, handed out the same session ids and
// overwrote each other's sessions.
TEST(StoreLockTest, ASecondLockOnTheStoreIsRefusedNamingTheHolder) {
  testing::TempDir dir;
  const std::string state_dir = dir.path();
  absl::StatusOr<StoreLock> first = StoreLock::Acquire(state_dir, "/run/first.sock");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(testing::ReadFileBytes(state_dir + "/protond.lock"),
            absl::StrCat(getpid(), " /run/first.sock\n"));

  // flock locks belong to an open file, so a second open in this process conflicts as another
  // daemon's would.
  absl::StatusOr<StoreLock> second = StoreLock::Acquire(state_dir, "/run/second.sock");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            absl::StrCat("another protond (pid ", getpid(),
                         ", socket /run/first.sock) uses the "
                         "store in ",
                         state_dir, "; stop it, or give this one another --state-dir"));
  // The refused one wrote nothing over the holder's line.
  EXPECT_EQ(testing::ReadFileBytes(state_dir + "/protond.lock"),
            absl::StrCat(getpid(), " /run/first.sock\n"));
}

TEST(StoreLockTest, TheLockGoesWithItsHolder) {
  testing::TempDir dir;
  const std::string state_dir = dir.path();
  std::optional<absl::StatusOr<StoreLock>> first = StoreLock::Acquire(state_dir, "/run/a.sock");
  ASSERT_TRUE(first->ok());
  first.reset();
  absl::StatusOr<StoreLock> second = StoreLock::Acquire(state_dir, "/run/b.sock");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(testing::ReadFileBytes(state_dir + "/protond.lock"),
            absl::StrCat(getpid(), " /run/b.sock\n"));
}

// Issue 27: a state directory removed and made again while the daemon ran held no lock, so a
// second daemon could open the store written there anew.
TEST(StoreLockTest, ALockWhoseDirectoryWasRemovedIsTakenAgain) {
  testing::TempDir dir;
  const std::string state_dir = dir.path();
  absl::StatusOr<StoreLock> held = StoreLock::Acquire(state_dir, "/run/a.sock");
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_TRUE(held->RelockIfRemoved(state_dir, "/run/a.sock").ok());  // still there: kept
  std::filesystem::remove_all(state_dir);
  std::filesystem::create_directories(state_dir);
  ASSERT_TRUE(held->RelockIfRemoved(state_dir, "/run/a.sock").ok());
  EXPECT_EQ(testing::ReadFileBytes(state_dir + "/protond.lock"),
            absl::StrCat(getpid(), " /run/a.sock\n"));
  EXPECT_FALSE(StoreLock::Acquire(state_dir, "/run/b.sock").ok());
}

}  // namespace
}  // namespace protond::store
