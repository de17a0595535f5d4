// Test-only: the files of the export tests: golden files in testdata/, a temporary folder per
// test, and reading a file back.
#ifndef PROTOND_VIEW_TESTING_TEST_FILES_H_
#define PROTOND_VIEW_TESTING_TEST_FILES_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "view/testing/temp_dir_test.h"

namespace protond::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `actual` is the content of testdata/`name`. With PROTOND_UPDATE_GOLDEN=1 in the environment the
// file is rewritten instead (review the diff before committing it).
inline void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(EXPORT_TESTDATA_DIR) + "/" + name;
  const char* update = std::getenv("PROTOND_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::ifstream(path).good())
      << path << " is missing; PROTOND_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(actual, ReadFile(path)) << "differs from " << path;
}

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEST_FILES_H_
