// The main() of every protond_test binary: GoogleTest's, plus an account of skips. ctest counts a
// binary whose tests were skipped (GTEST_SKIP) as passed, so a test that backs a documented claim
// could pass for months without running. Here:
// - every skipped test is appended, with its reason, to the file named by PROTOND_SKIPPED_TESTS
//   (scripts/test.sh reads it, prints it, and fails on a skip it does not expect);
// - a binary whose tests were all skipped exits 77, which ctest reports as "Skipped"
//   (SKIP_RETURN_CODE in cmake/protond_test.cmake).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace {

constexpr int kAllSkippedExitCode = 77;

// Why GTEST_SKIP said it skipped, on one line.
std::string SkipReason(const testing::TestResult& result) {
  for (int i = 0; i < result.total_part_count(); ++i) {
    const testing::TestPartResult& part = result.GetTestPartResult(i);
    if (part.skipped()) {
      return absl::StrReplaceAll(part.message(), {{"\n", " "}, {"\t", " "}});
    }
  }
  return "";
}

// Lines "BINARY SUITE.TEST<tab>REASON", one per skipped test; written at once with O_APPEND, so
// binaries that ctest runs in parallel do not interleave within a line.
std::string SkippedLines(const std::string& binary) {
  std::string lines;
  const testing::UnitTest& all = *testing::UnitTest::GetInstance();
  for (int s = 0; s < all.total_test_suite_count(); ++s) {
    const testing::TestSuite& suite = *all.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const testing::TestInfo& test = *suite.GetTestInfo(t);
      if (!test.should_run() || !test.result()->Skipped()) continue;
      absl::StrAppend(&lines, binary, " ", suite.name(), ".", test.name(), "\t",
                      SkipReason(*test.result()), "\n");
    }
  }
  return lines;
}

void AppendSkips(const std::string& binary) {
  const char* path = std::getenv("PROTOND_SKIPPED_TESTS");
  const std::string lines = SkippedLines(binary);
  if (path == nullptr || *path == '\0' || lines.empty()) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, lines.data(), lines.size()) != static_cast<ssize_t>(lines.size())) {
    // The account is the point of this main: a run that cannot keep it fails.
    std::fprintf(stderr, "cannot append the skipped tests to %s\n", path);
    std::exit(1);
  }
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  const std::string_view path = argc > 0 ? argv[0] : "test";
  AppendSkips(std::string(path.substr(path.rfind('/') + 1)));  // npos + 1 is 0: no folder
  const testing::UnitTest& all = *testing::UnitTest::GetInstance();
  if (failed == 0 && all.test_to_run_count() > 0 &&
      all.skipped_test_count() == all.test_to_run_count()) {
    return kAllSkippedExitCode;
  }
  return failed;
}
