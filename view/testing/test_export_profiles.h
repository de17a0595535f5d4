// Test-only: the fixed profile every export test renders, as a session's tree and as the events
// of the same session recorded with data=trace.
#ifndef PROTOND_VIEW_TESTING_TEST_EXPORT_PROFILES_H_
#define PROTOND_VIEW_TESTING_TEST_EXPORT_PROFILES_H_

#include <cstdint>

#include "protond.pb.h"
#include "view/testing/test_profiles.h"

namespace protond::testing {

// ROOT
//   train (1 instance, 1000 ns of CPU time)
//     step (2 instances, 800 ns)
//       _Z6matmulii: 4 launches, 600 ns (matmul(int, int): the name holds a comma)
//       add_one: 2 launches, 100 ns
//     add_one: 1 launch, 50 ns (the same kernel under another scope)
//   [CUDA memcpy Host-to-Device]: 1 copy, 30 ns
//   __proton_launch_metadata -> hidden_kernel: 1 launch, 9 ns (hidden, as in the tree view)
inline v1::Tree ExportTree() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  v1::TreeNode* train = AddNode(&tree, 1, 0, "train", 1);
  train->set_duration_ns_sum(1000);
  train->set_duration_ns_min(1000);
  train->set_duration_ns_max(1000);
  v1::TreeNode* step = AddNode(&tree, 2, 1, "step", 2);
  step->set_duration_ns_sum(800);
  step->set_duration_ns_min(300);
  step->set_duration_ns_max(500);
  AddKernel(&tree, 3, 2, "_Z6matmulii", 4, 600);
  AddKernel(&tree, 4, 2, "add_one", 2, 100);
  AddKernel(&tree, 5, 1, "add_one", 1, 50);
  AddKernel(&tree, 6, 0, "[CUDA memcpy Host-to-Device]", 1, 30);
  AddNode(&tree, 7, 0, "__proton_launch_metadata", 1);
  AddKernel(&tree, 8, 7, "hidden_kernel", 1, 9);
  return tree;
}

// ROOT, then `levels` - 1 scopes "s" each inside the one before, then kernel "k" (1 launch,
// 5 ns) in the innermost: a chain `levels` deep whose only own time is the kernel's.
inline v1::Tree DeepChain(int levels) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  for (int i = 1; i < levels; ++i) AddNode(&tree, i, i - 1, "s", 1);
  AddKernel(&tree, levels, levels - 1, "k", 1, 5);
  return tree;
}

// The tree's scope instances and launches one by one, on thread 100 and stream 7: train over
// [500, 9500] ns, step over [900, 4500] and [4800, 6500]; a launch every 1000 ns from 1000 ns:
// matmul took 100, 200, 150 and 150 ns, add_one 40 and 60 ns under step and 50 ns under train;
// the copy 30 ns; the hidden kernel 9 ns.
inline v1::Trace ExportTrace() {
  v1::Trace trace;
  trace.set_clock_offset_ns(1'700'000'000'000'000'000);
  const v1::Tree tree = ExportTree();
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.id() == 0) continue;
    v1::TreeNode* copy = trace.add_nodes();
    copy->set_id(node.id());
    copy->set_parent_id(node.parent_id());
    copy->set_name(node.name());
  }
  auto scope = [&](uint32_t node_id, uint64_t begin_ns, uint64_t end_ns) {
    v1::ScopeEvent* event = trace.add_scope_events();
    event->set_process_id(1);
    event->set_tid(100);
    event->set_node_id(node_id);
    event->set_begin_ns(begin_ns);
    event->set_end_ns(end_ns);
  };
  scope(2, 900, 4500);
  scope(2, 4800, 6500);
  scope(1, 500, 9500);
  uint64_t start_ns = 1000;
  uint32_t correlation = 1;
  auto launch = [&](uint32_t node_id, v1::GpuEvent::Kind kind, uint64_t duration_ns) {
    v1::GpuEvent* event = trace.add_gpu_events();
    event->set_process_id(1);
    event->set_node_id(node_id);
    event->set_kind(kind);
    event->set_start_ns(start_ns);
    event->set_end_ns(start_ns + duration_ns);
    event->set_stream_id(7);
    event->set_correlation_id(correlation++);
    start_ns += 1000;
  };
  for (uint64_t ns : {100, 200, 150, 150}) launch(3, v1::GpuEvent::KERNEL, ns);
  for (uint64_t ns : {40, 60}) launch(4, v1::GpuEvent::KERNEL, ns);
  launch(5, v1::GpuEvent::KERNEL, 50);
  launch(6, v1::GpuEvent::MEMCPY, 30);
  launch(8, v1::GpuEvent::KERNEL, 9);
  return trace;
}

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEST_EXPORT_PROFILES_H_
