#include "page_server/page_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/temp_dir_test.h"

namespace protond::page_server {
namespace {

using ::testing::HasSubstr;

// dir_ (TempDirTest's) holds web/, the page's directory, and a file outside it.
class PageFilesTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    base_ = dir_;
    dir_ = base_ + "/web";
    ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
    ASSERT_EQ(mkdir((dir_ + "/assets").c_str(), 0700), 0);
    Write(dir_ + "/index.html", "<html></html>");
    Write(dir_ + "/app.js", "main();");
    Write(dir_ + "/assets/logo.svg", "<svg/>");
    Write(dir_ + "/.secret", "hidden");
    Write(base_ + "/outside.txt", "outside");
    ASSERT_EQ(symlink((base_ + "/outside.txt").c_str(), (dir_ + "/link.txt").c_str()), 0);
  }
  void TearDown() override {
    dir_ = base_;
    TempDirTest::TearDown();
  }

  static void Write(const std::string& path, const std::string& contents) {
    std::ofstream(path) << contents;
  }

  std::string base_;
};

TEST_F(PageFilesTest, ServesFilesWithTheirTypes) {
  absl::StatusOr<PageFile> index = ReadPageFile(dir_, "/");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->contents, "<html></html>");
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  absl::StatusOr<PageFile> app = ReadPageFile(dir_, "/app.js");
  ASSERT_TRUE(app.ok()) << app.status();
  EXPECT_EQ(app->contents, "main();");
  EXPECT_EQ(app->content_type, "text/javascript; charset=utf-8");
  absl::StatusOr<PageFile> logo = ReadPageFile(dir_, "/assets/logo.svg");
  ASSERT_TRUE(logo.ok()) << logo.status();
  EXPECT_EQ(logo->content_type, "image/svg+xml");
}

TEST_F(PageFilesTest, RefusesWhatIsNotAPageFile) {
  for (const char* path :
       {"/../outside.txt", "/assets/../index.html", "/./index.html", "//index.html", "/assets",
        "/assets/", "/.secret", "/link.txt", "/missing.js", "index.html", "/a\\b", ""}) {
    absl::StatusOr<PageFile> file = ReadPageFile(dir_, path);
    EXPECT_TRUE(absl::IsNotFound(file.status())) << path << ": " << file.status();
  }
  EXPECT_TRUE(absl::IsNotFound(ReadPageFile(dir_, std::string("/app.js\0x", 9)).status()));
}

TEST_F(PageFilesTest, ADirectoryWithoutIndexIsRefusedWithTheWayToBuildIt) {
  EXPECT_TRUE(CheckPageDirectory(dir_).ok());
  const absl::Status missing = CheckPageDirectory(dir_ + "/assets");
  EXPECT_TRUE(absl::IsNotFound(missing));
  EXPECT_THAT(missing.message(), HasSubstr(dir_ + "/assets"));
  EXPECT_THAT(missing.message(), HasSubstr("scripts/build_web.sh"));
}

TEST(ContentTypeTest, ByExtension) {
  EXPECT_EQ(ContentTypeOf("a.css"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("a.woff2"), "font/woff2");
  EXPECT_EQ(ContentTypeOf("a.map"), "application/json");
  EXPECT_EQ(ContentTypeOf("README"), "application/octet-stream");
  EXPECT_EQ(ContentTypeOf("a.exe"), "application/octet-stream");
}

TEST(DefaultWebDirTest, ItIsBesideTheBinary) {
  absl::StatusOr<std::string> dir = DefaultWebDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  // This test binary is in the build's bin/, as protonctl and protond are.
  EXPECT_THAT(*dir, ::testing::EndsWith("/share/protond/web"));
  EXPECT_THAT(*dir, ::testing::Not(HasSubstr("/bin/")));
  EXPECT_THAT(*dir, ::testing::Not(HasSubstr("..")));
}

}  // namespace
}  // namespace protond::page_server
