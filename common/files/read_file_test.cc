#include "common/files/read_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::files {
namespace {

using ::testing::HasSubstr;

TEST(ReadFileTest, ReadsAWholeFileAndNamesAMissingOne) {
  char path[] = "/tmp/protond-read-file-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text(100'000, 'x');  // more than one read
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  EXPECT_EQ(ReadWholeFile(path, "tokens file").value_or(""), text);
  unlink(path);
  const absl::StatusOr<std::string> missing = ReadWholeFile(path, "tokens file");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr(std::string("tokens file ") + path));
}

// A /proc file opened while its process ran and read after it was reaped fails with ESRCH: an
// error to return, where an ifstream threw and ended protond (its ingest cycle reads
// /proc/PID/stat of processes that are exiting).
TEST(ReadFileTest, AProcFileOfAProcessThatEndedWhileOpenIsAnError) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  const std::string path = "/proc/" + std::to_string(child) + "/stat";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const absl::StatusOr<std::string> read = ReadFromFd(fd, "stat");
  close(fd);
  EXPECT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("reading stat"));
}

}  // namespace
}  // namespace protond::files
