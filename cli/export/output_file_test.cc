#include "cli/export/output_file.h"

#include <cstdlib>

#include "cli/export/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::HasSubstr;

class OutputFileTest : public testing::TempDirTest {
 protected:
  // Only `name` in the folder: no temporary file is left behind.
  void ExpectOnly(const std::string& name) {
    EXPECT_EQ(std::system(("test \"$(ls -A " + dir_ + ")\" = " + name).c_str()), 0);
  }
};

TEST_F(OutputFileTest, WritesANewFile) {
  const std::string path = dir_ + "/out.csv";
  ASSERT_TRUE(WriteOutputFile(path, "a,b\n", false).ok());
  EXPECT_EQ(testing::ReadFile(path), "a,b\n");
  ExpectOnly("out.csv");
}

TEST_F(OutputFileTest, AnExistingFileIsKeptWithoutForce) {
  const std::string path = dir_ + "/out.csv";
  ASSERT_TRUE(WriteOutputFile(path, "old\n", false).ok());
  const absl::Status checked = CheckOutputPath(path, false);
  EXPECT_EQ(checked.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(checked.message(), path + " exists; --force overwrites it, or choose another -o");
  EXPECT_EQ(WriteOutputFile(path, "new\n", false).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(testing::ReadFile(path), "old\n");
  ExpectOnly("out.csv");
  EXPECT_TRUE(CheckOutputPath(path, true).ok());
  ASSERT_TRUE(WriteOutputFile(path, "new\n", true).ok());
  EXPECT_EQ(testing::ReadFile(path), "new\n");
  ExpectOnly("out.csv");
}

TEST_F(OutputFileTest, AFolderThatDoesNotExistIsNamed) {
  const absl::Status written = WriteOutputFile(dir_ + "/none/out.csv", "x", false);
  EXPECT_EQ(written.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(written.message(), HasSubstr("cannot create " + dir_ + "/none/out.csv.protonctl-"));
  EXPECT_THAT(written.message(), HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace protond::cli
