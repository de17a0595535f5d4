// Test-only: building the GPU parts of a session's v1::Tree (kernels and an H100's device info)
// for the tests of protonctl's views.
#ifndef PROTOND_VIEW_TESTING_TEST_PROFILES_H_
#define PROTOND_VIEW_TESTING_TEST_PROFILES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "protond.pb.h"
#include "view/testing/test_trees.h"

namespace protond::testing {

// A kernel as protond records one: its launches, "time (ns)" and "device_id" 0.
inline v1::TreeNode* AddKernel(v1::Tree* tree, uint32_t id, uint32_t parent_id,
                               const std::string& name, uint64_t count, int64_t time_ns) {
  v1::TreeNode* kernel = AddNode(tree, id, parent_id, name, count);
  AddInt(kernel, "time (ns)", v1::Metric::INCLUSIVE, time_ns);
  AddInt(kernel, "device_id", v1::Metric::PROPERTY, 0);
  return kernel;
}

// A matmul whose bounds on an H100 SXM are round: 98.94 TFLOP of FP16 is 0.1 s at 989.4
// TFLOP/s, 67 GB is 0.02 s at 3.35 TB/s; it took 0.2 s over 700 launches.
inline v1::TreeNode* AddH100Matmul(v1::Tree* tree, uint32_t id, uint32_t parent_id) {
  v1::TreeNode* matmul = AddKernel(tree, id, parent_id, "nvjet", 700, 200'000'000);
  AddInt(matmul, "flops16", v1::Metric::INCLUSIVE, 98'940'000'000'000);
  AddInt(matmul, "bytes", v1::Metric::INCLUSIVE, 67'000'000'000);
  return matmul;
}

// Device 0 as an H100 SXM reports itself (PROTON_COMPAT.md).
inline void AddH100Sxm(v1::Tree* tree) {
  v1::Device* device = tree->add_devices();
  device->set_arch(90);
  device->set_num_sms(132);
  device->set_bus_width_bits(5120);
  device->set_clock_rate_khz(1980000);
  device->set_memory_clock_rate_khz(2619000);
}

// A PC-sampled line or instruction as protond records one: "num_samples", the stall reasons
// ({"stalled_wait", 12}, ...) and "num_stalled_samples", their sum but "stalled_selected".
inline v1::TreeNode* AddSampled(v1::Tree* tree, uint32_t id, uint32_t parent_id,
                                const std::string& name, int64_t samples,
                                const std::vector<std::pair<std::string, int64_t>>& reasons) {
  v1::TreeNode* node = AddNode(tree, id, parent_id, name);
  int64_t stalled = 0;
  for (const auto& [reason, count] : reasons) {
    AddInt(node, reason, v1::Metric::INCLUSIVE, count);
    if (reason != "stalled_selected") stalled += count;
  }
  AddInt(node, "num_samples", v1::Metric::INCLUSIVE, samples);
  AddInt(node, "num_stalled_samples", v1::Metric::INCLUSIVE, stalled);
  return node;
}

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEST_PROFILES_H_
