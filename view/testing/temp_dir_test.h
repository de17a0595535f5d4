// Test-only: a fixture with a temporary folder per test, for tests that write files (the export
// tests, the web page's files).
#ifndef PROTOND_VIEW_TESTING_TEMP_DIR_TEST_H_
#define PROTOND_VIEW_TESTING_TEMP_DIR_TEST_H_

#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace protond::testing {

// dir_ is a new folder under /tmp, removed with what is in it after the test.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/protond_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  std::string dir_;
};

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEMP_DIR_TEST_H_
