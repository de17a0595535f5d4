// PythonStack in a process without CPython (this test links none): it says which function is
// missing instead of walking.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shim/python/python_stack.h"

namespace protond::shim {
namespace {

TEST(PythonStackAbsentTest, AProcessWithoutPythonIsRefusedWithTheMissingFunction) {
  std::string error;
  EXPECT_EQ(PythonStack::Resolve("", &error), nullptr);
  EXPECT_EQ(
      error,
      "this process has no CPython 3.9 or later (Py_IsInitialized is not one of its symbols)");
}

}  // namespace
}  // namespace protond::shim
