// What the GPU tests (ctest label gpu) do where their workload finds no usable CUDA device: skip,
// saying why, so that a machine without a GPU runs the other tests. With PROTOND_REQUIRE_GPU=1
// (the device scripts, tests/device/*.sh, set it) the same finding fails the test instead: on the
// GPU machine a broken driver or a missing libcuda must not read as a pass.
#ifndef PROTOND_TESTS_GPU_GPU_REQUIRED_H_
#define PROTOND_TESTS_GPU_GPU_REQUIRED_H_

#include <cstdlib>
#include <string_view>

#include "gtest/gtest.h"

namespace protond::testing {

inline bool GpuRequired() {
  const char* value = std::getenv("PROTOND_REQUIRE_GPU");
  return value != nullptr && std::string_view(value) == "1";
}

}  // namespace protond::testing

// Skips the test, or fails it under PROTOND_REQUIRE_GPU=1, with `why`: what the workload said
// (the CUDA error it got). A macro because GTEST_SKIP and GTEST_FAIL return from the function
// that uses them; in SetUp, either keeps the test's body from running.
#define PROTOND_SKIP_WITHOUT_GPU(why)                                                         \
  do {                                                                                        \
    if (::protond::testing::GpuRequired()) {                                                  \
      GTEST_FAIL() << "PROTOND_REQUIRE_GPU=1, and no CUDA device is usable: " << (why);       \
    }                                                                                         \
    GTEST_SKIP() << "no CUDA device (PROTOND_REQUIRE_GPU=1 makes this a failure): " << (why); \
  } while (0)

#endif  // PROTOND_TESTS_GPU_GPU_REQUIRED_H_
