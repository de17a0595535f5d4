// A program whose profile is a big tree, for bench/viewer_latency.py and bench/load.py: under
// "model", LAYERS layers of BLOCKS blocks of OPS ops, each op scope entered REPEATS times with a
// flops and a bytes metric. With the defaults (20 x 10 x 50 x 2) the tree has 10,222 nodes, ROOT
// included. Then it lives on HOLD seconds (default 0), so that its session is a running one.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "protond/shim.h"

namespace {

int ArgOr(int argc, char** argv, int index, int fallback) {
  return index < argc ? std::atoi(argv[index]) : fallback;
}

void Op(const std::string& name, int repeats) {
  for (int r = 0; r < repeats; ++r) {
    protond_scope_enter(name.c_str());
    protond_metric_int64("flops", 1000);
    protond_metric_int64("bytes", 256);
    protond_scope_exit(name.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 6) {
    std::fprintf(stderr, "usage: wide_tree_workload [LAYERS [BLOCKS [OPS [REPEATS [HOLD]]]]]\n");
    return 2;
  }
  const int layers = ArgOr(argc, argv, 1, 20);
  const int blocks = ArgOr(argc, argv, 2, 10);
  const int ops = ArgOr(argc, argv, 3, 50);
  const int repeats = ArgOr(argc, argv, 4, 2);
  const int hold_seconds = ArgOr(argc, argv, 5, 0);
  protond_scope_enter("model");
  for (int l = 0; l < layers; ++l) {
    const std::string layer = "layer_" + std::to_string(l);
    protond_scope_enter(layer.c_str());
    for (int b = 0; b < blocks; ++b) {
      const std::string block = "block_" + std::to_string(b);
      protond_scope_enter(block.c_str());
      for (int o = 0; o < ops; ++o) Op("op_" + std::to_string(o), repeats);
      protond_scope_exit(block.c_str());
    }
    protond_scope_exit(layer.c_str());
    // A layer writes 4 records per op call: waiting for the daemon to store them keeps the
    // thread's lane from filling up, so that nothing is dropped.
    protond_flush();
  }
  protond_scope_exit("model");
  std::printf("wide_tree_workload: %d nodes\n", 2 + layers * (1 + blocks * (1 + ops)));
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(hold_seconds));
  return 0;
}
