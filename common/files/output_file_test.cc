#include "common/files/output_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::files {
namespace {

using ::testing::ElementsAre;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void MakeFile(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

mode_t TypeAt(const std::string& path) {
  struct stat info;
  return lstat(path.c_str(), &info) == 0 ? info.st_mode & S_IFMT : 0;
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/protond_output_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The names in the folder, sorted: no temporary file is left behind.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_;
};

TEST_F(OutputFileTest, WritesANewFile) {
  const std::string path = dir_ + "/out.csv";
  ASSERT_TRUE(WriteOutputFile(path, "a,b\n", ExistingFile::kKeep).ok());
  EXPECT_EQ(ReadFile(path), "a,b\n");
  EXPECT_THAT(Names(), ElementsAre("out.csv"));
}

TEST_F(OutputFileTest, AnExistingFileIsReplacedOnlyWhenAsked) {
  const std::string path = dir_ + "/out.csv";
  MakeFile(path, "old\n");
  const absl::Status checked = CheckOutputPath(path, ExistingFile::kKeep);
  EXPECT_EQ(checked.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(checked.message(), path + " exists");
  EXPECT_EQ(WriteOutputFile(path, "new\n", ExistingFile::kKeep), checked);
  EXPECT_EQ(ReadFile(path), "old\n");
  EXPECT_TRUE(CheckOutputPath(path, ExistingFile::kReplace).ok());
  ASSERT_TRUE(WriteOutputFile(path, "new\n", ExistingFile::kReplace).ok());
  EXPECT_EQ(ReadFile(path), "new\n");
  EXPECT_THAT(Names(), ElementsAre("out.csv"));
}

// The issue's `protonctl export -o /dev/null --force` as root: a copy of /dev/null's node in the
// test's folder (root only) is written into, and stays a device.
TEST_F(OutputFileTest, ACharacterDeviceIsWrittenIntoNeverReplaced) {
  const std::string path = dir_ + "/null";
  if (mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod needs root";
  }
  EXPECT_TRUE(CheckOutputPath(path, ExistingFile::kKeep).ok());
  ASSERT_TRUE(WriteOutputFile(path, "profile", ExistingFile::kReplace).ok());
  ASSERT_TRUE(WriteOutputFile(path, "profile", ExistingFile::kKeep).ok());
  EXPECT_EQ(TypeAt(path), S_IFCHR);
  EXPECT_THAT(Names(), ElementsAre("null"));
}

TEST_F(OutputFileTest, AFifoIsWrittenIntoNeverReplaced) {
  const std::string path = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  // Opened for reading first, so that the writer's open does not wait for a reader.
  const int reader = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const absl::Status written = WriteOutputFile(path, "profile", ExistingFile::kReplace);
  char read_back[16] = {};
  const ssize_t n = read(reader, read_back, sizeof(read_back));
  close(reader);
  ASSERT_TRUE(written.ok()) << written;
  EXPECT_EQ(std::string(read_back, n > 0 ? n : 0), "profile");
  EXPECT_EQ(TypeAt(path), S_IFIFO);
}

// A link to a device (as /dev/stdout is one to /proc/self/fd/1) is followed to the device.
TEST_F(OutputFileTest, ALinkToADeviceIsWrittenThrough) {
  const std::string path = dir_ + "/null";
  ASSERT_EQ(symlink("/dev/null", path.c_str()), 0);
  ASSERT_TRUE(WriteOutputFile(path, "profile", ExistingFile::kReplace).ok());
  EXPECT_EQ(TypeAt(path), S_IFLNK);
  EXPECT_EQ(TypeAt("/dev/null"), S_IFCHR);
}

// With kReplace a link to a regular file is replaced by the new file: what it pointed at (another
// user's file, a system file) is not written.
TEST_F(OutputFileTest, ALinkToAFileIsReplacedNotWrittenThrough) {
  const std::string victim = dir_ + "/victim";
  const std::string path = dir_ + "/out.hatchet";
  MakeFile(victim, "precious\n");
  ASSERT_EQ(symlink(victim.c_str(), path.c_str()), 0);
  EXPECT_EQ(WriteOutputFile(path, "profile", ExistingFile::kKeep).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(WriteOutputFile(path, "profile", ExistingFile::kReplace).ok());
  EXPECT_EQ(TypeAt(path), S_IFREG);
  EXPECT_EQ(ReadFile(path), "profile");
  EXPECT_EQ(ReadFile(victim), "precious\n");
}

// The temporary names that protonctl (PATH.protonctl-PID.tmp) and the control library
// (PATH.tmpPID) used to write could be planted in advance; today's names are random, and a link
// at whichever name is drawn would make O_EXCL fail rather than be followed.
TEST_F(OutputFileTest, LinksPlantedAtPredictableTemporaryNamesAreNotFollowed) {
  const std::string victim = dir_ + "/victim";
  const std::string path = dir_ + "/out.hatchet";
  MakeFile(victim, "precious\n");
  const std::string pid = std::to_string(getpid());
  ASSERT_EQ(symlink(victim.c_str(), (path + ".tmp" + pid).c_str()), 0);
  ASSERT_EQ(symlink(victim.c_str(), (path + ".protonctl-" + pid + ".tmp").c_str()), 0);
  ASSERT_TRUE(WriteOutputFile(path, "profile", ExistingFile::kReplace).ok());
  EXPECT_EQ(ReadFile(path), "profile");
  EXPECT_EQ(TypeAt(path), S_IFREG);
  EXPECT_EQ(ReadFile(victim), "precious\n");
}

TEST_F(OutputFileTest, ADirectoryIsRefused) {
  const absl::Status checked = CheckOutputPath(dir_, ExistingFile::kReplace);
  EXPECT_EQ(checked.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(checked.message(),
            dir_ + " is a directory; only a regular file, a character device or a FIFO is written");
  EXPECT_EQ(WriteOutputFile(dir_, "profile", ExistingFile::kReplace), checked);
  EXPECT_EQ(TypeAt(dir_), S_IFDIR);
}

// A copy of /dev/full's node in the test's folder (root only), so that a broken writer replaces
// the copy, never the machine's /dev/full.
TEST_F(OutputFileTest, AFullDeviceSaysSo) {
  const std::string path = dir_ + "/full";
  if (mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) GTEST_SKIP() << "mknod needs root";
  const absl::Status written = WriteOutputFile(path, "profile", ExistingFile::kReplace);
  EXPECT_EQ(written.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(written.message(), "cannot write " + path + ": No space left on device");
  EXPECT_EQ(TypeAt(path), S_IFCHR);
}

TEST_F(OutputFileTest, DashAndDevStdoutAreStandardOutput) {
  ::testing::internal::CaptureStdout();
  const absl::Status dash = WriteOutputFile("-", "one\n", ExistingFile::kKeep);
  const absl::Status dev_stdout = WriteOutputFile("/dev/stdout", "two\n", ExistingFile::kKeep);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "one\ntwo\n");
  EXPECT_TRUE(dash.ok()) << dash;
  EXPECT_TRUE(dev_stdout.ok()) << dev_stdout;
  EXPECT_TRUE(CheckOutputPath("-", ExistingFile::kKeep).ok());
  EXPECT_FALSE(std::filesystem::exists("-"));
}

TEST_F(OutputFileTest, AFolderThatDoesNotExistIsNamed) {
  const absl::Status written = WriteOutputFile(dir_ + "/none/out.csv", "x", ExistingFile::kKeep);
  EXPECT_EQ(written.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(written.message(), "cannot write " + dir_ + "/none/out.csv: No such file or directory");
}

}  // namespace
}  // namespace protond::files
