// An unmodified program that marks its phases with NVTX (the header-only nvtx3, as PyTorch and
// most CUDA libraries use it) and knows nothing of protond. Under protonctl run its ranges become
// scopes: nvtx_test.cc checks the exact tree.
//   main:    epoch x1 { step x3 { forward x1, "rückwärts" (wide) x1 } }, "tail" (Ex, ASCII) x1
//   worker:  load x4 (on its own thread, so at the root of its own stack)
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <thread>

int main() {
  nvtxRangePushA("epoch");
  for (int step = 0; step < 3; ++step) {
    nvtxRangePushA("step");
    nvtxRangePushA("forward");
    nvtxRangePop();
    nvtxRangePushW(L"r\u00fcckw\u00e4rts");
    nvtxRangePop();
    nvtxRangePop();
  }
  nvtxRangePop();

  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "tail";
  nvtxRangePushEx(&attributes);
  nvtxMarkA("a mark is not a scope");
  nvtxRangePop();

  std::thread worker([] {
    for (int i = 0; i < 4; ++i) {
      nvtxRangePushA("load");
      nvtxRangePop();
    }
  });
  worker.join();
  // An unbalanced pop must not harm anything.
  const int level = nvtxRangePop();
  std::printf("nvtx workload done (extra pop returned %d)\n", level);
  return 0;
}
