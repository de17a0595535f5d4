// Proton's context="python" read from C: the Python call stack of the thread inside a CUDA call,
// walked by the shim itself with CPython's own API, resolved at run time in the process (no
// Python headers, nothing built per Python version: the functions used exist from 3.9 to 3.13).
// A ctypes callback did this before, at about 2x the cost of the program on a training loop.
//
// Frames are named as Proton names them, `<co_filename>:<f_lineno>@<co_name>`, outermost first,
// and interned as contexts in the recorder's NameTable. A thread that holds the GIL is walked as
// it is; one that runs Python code but let the GIL go (a C call that released it) takes it for
// the walk, as Proton and ctypes callbacks do; a thread Python does not know (PyTorch's autograd
// threads) has no Python frames and gets ROOT, as in Proton.
#ifndef PROTOND_SHIM_PYTHON_PYTHON_STACK_H_
#define PROTOND_SHIM_PYTHON_PYTHON_STACK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "shim/scopes/name_table.h"

namespace protond::shim {

struct CPythonApi;  // the functions resolved from the process (python_stack.cc)

class PythonStack {
 public:
  // nullptr when the process has no CPython (not a Python program), with the missing function
  // named in `error`. Frames of files under `excluded_prefix` (protond's own package) are left
  // out; "" leaves none out.
  static std::unique_ptr<PythonStack> Resolve(std::string excluded_prefix, std::string* error);
  ~PythonStack();  // the code objects it holds stay referenced: the interpreter may be gone

  // The context of GPU work the calling thread launches now: its Python frames under ROOT; 0
  // (ROOT) for a thread with none; `failed` (PROTOND_NO_CONTEXT) while the interpreter is not
  // running or a name cannot be read.
  uint32_t ContextOfThisThread(NameTable& names, uint32_t failed);

 private:
  // What a code object's frames are named by, read once: it stays referenced, so its address
  // is never another code object's.
  struct CodeNames {
    std::string file;
    std::string function;
    bool excluded = false;
  };
  struct Frame {
    void* frame;  // strong references while the walk runs
    void* code;
    // Where the frame is in its code: the instruction offset where this Python has it (3.11 and
    // later), else the line. Finding the line from the offset scans the code's line table, which
    // in the long functions torch.compile generates costs more than the rest of the walk.
    int position;
  };
  // (parent context, code object, position): the context of that frame under that parent.
  using FrameKey = std::tuple<uint32_t, const void*, int>;
  struct FrameKeyHash {
    size_t operator()(const FrameKey& key) const;
  };

  PythonStack(std::unique_ptr<CPythonApi> api, std::string excluded_prefix);
  // The thread's frames, innermost first (the GIL held), at most kMaxDepth.
  void ReadFrames(void* thread_state, std::vector<Frame>* frames) const;
  uint32_t Intern(const std::vector<Frame>& frames, NameTable& names, uint32_t failed);
  const CodeNames* NamesOf(void* code) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::unique_ptr<CPythonApi> api_;
  const std::string excluded_prefix_;
  // Taken with the GIL held, so uncontended with one interpreter; it keeps the caches right
  // under a free-threaded Python too.
  absl::Mutex mutex_;
  // Standard maps, not Abseil's: each Abseil library the shim links is loaded into every process
  // the shim is preloaded in (docs/performance.md, "Process start-up cost of the shim").
  std::unordered_map<const void*, CodeNames> code_names_ ABSL_GUARDED_BY(mutex_);
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_contexts_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::shim

#endif  // PROTOND_SHIM_PYTHON_PYTHON_STACK_H_
