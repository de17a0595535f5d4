#include "shim/python/python_stack.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace protond::shim {

// CPython's functions, as the process has them. PyObject*, PyThreadState* and PyFrameObject* are
// opaque here; PyGILState_STATE is an enum, passed as an int.
struct CPythonApi {
  int (*is_initialized)();
  int (*is_finalizing)();  // nullptr: this Python does not say (the GIL is then never taken)
  void* (*this_thread_state)();
  int (*gil_held)();
  int (*gil_ensure)();
  void (*gil_release)(int);
  void* (*thread_frame)(void*);  // strong references, from here down
  void* (*frame_back)(void*);
  void* (*frame_code)(void*);
  int (*frame_line)(void*);
  int (*frame_offset)(void*);  // PyFrame_GetLasti, 3.11 and later; nullptr before
  void* (*get_attribute)(void*, const char*);
  const char* (*utf8)(void*);  // borrowed: valid while its string lives
  void (*incref)(void*);
  void (*decref)(void*);
  void (*error_fetch)(void**, void**, void**);
  void (*error_restore)(void*, void*, void*);
};

namespace {

// Python's own recursion limit is 1000 by default: a stack deeper than this is cut at its
// outermost frames.
constexpr size_t kMaxDepth = 1024;

template <typename Function>
bool Find(const char* symbol, Function* function, std::string* missing) {
  *function = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, symbol));
  if (*function == nullptr && missing->empty()) *missing = symbol;
  return *function != nullptr;
}

// Takes the GIL for the walk when the thread let it go; gives it back after.
class GilForWalk {
 public:
  explicit GilForWalk(const CPythonApi& api) : api_(api) {
    if (api.gil_held()) return;
    // Taking the GIL while the interpreter shuts down would hang or end this thread.
    if (api.is_finalizing == nullptr || api.is_finalizing()) return;
    state_ = api.gil_ensure();
    taken_ = true;
  }
  ~GilForWalk() {
    if (taken_) api_.gil_release(state_);
  }
  bool held() const { return taken_ || api_.gil_held(); }

 private:
  const CPythonApi& api_;
  int state_ = 0;
  bool taken_ = false;
};

// Keeps the program's pending exception, if any, out of the names read during the walk.
class PendingError {
 public:
  explicit PendingError(const CPythonApi& api) : api_(api) {
    api.error_fetch(&type_, &value_, &traceback_);
  }
  ~PendingError() { api_.error_restore(type_, value_, traceback_); }

 private:
  const CPythonApi& api_;
  void* type_ = nullptr;
  void* value_ = nullptr;
  void* traceback_ = nullptr;
};

}  // namespace

std::unique_ptr<PythonStack> PythonStack::Resolve(std::string excluded_prefix, std::string* error) {
  auto api = std::make_unique<CPythonApi>();
  std::string missing;
  Find("Py_IsInitialized", &api->is_initialized, &missing);
  // Public from 3.13; the underscored one before.
  if (std::string none; !Find("Py_IsFinalizing", &api->is_finalizing, &none)) {
    Find("_Py_IsFinalizing", &api->is_finalizing, &none);
  }
  Find("PyGILState_GetThisThreadState", &api->this_thread_state, &missing);
  Find("PyGILState_Check", &api->gil_held, &missing);
  Find("PyGILState_Ensure", &api->gil_ensure, &missing);
  Find("PyGILState_Release", &api->gil_release, &missing);
  Find("PyThreadState_GetFrame", &api->thread_frame, &missing);
  Find("PyFrame_GetBack", &api->frame_back, &missing);
  Find("PyFrame_GetCode", &api->frame_code, &missing);
  Find("PyFrame_GetLineNumber", &api->frame_line, &missing);
  if (std::string none; !Find("PyFrame_GetLasti", &api->frame_offset, &none)) {
    api->frame_offset = nullptr;
  }
  Find("PyObject_GetAttrString", &api->get_attribute, &missing);
  Find("PyUnicode_AsUTF8", &api->utf8, &missing);
  Find("Py_IncRef", &api->incref, &missing);
  Find("Py_DecRef", &api->decref, &missing);
  Find("PyErr_Fetch", &api->error_fetch, &missing);
  Find("PyErr_Restore", &api->error_restore, &missing);
  if (!missing.empty()) {
    *error = absl::StrCat("this process has no CPython 3.9 or later (", missing,
                          " is not one of its symbols)");
    return nullptr;
  }
  return std::unique_ptr<PythonStack>(new PythonStack(std::move(api), std::move(excluded_prefix)));
}

size_t PythonStack::FrameKeyHash::operator()(const FrameKey& key) const {
  const auto [parent, code, position] = key;
  // The code object's address carries most of the entropy; the rest is mixed in.
  return std::hash<const void*>()(code) ^ (size_t{parent} * 0x9E3779B97F4A7C15ULL) ^
         (static_cast<size_t>(static_cast<uint32_t>(position)) << 1);
}

PythonStack::PythonStack(std::unique_ptr<CPythonApi> api, std::string excluded_prefix)
    : api_(std::move(api)), excluded_prefix_(std::move(excluded_prefix)) {}

PythonStack::~PythonStack() = default;

uint32_t PythonStack::ContextOfThisThread(NameTable& names, uint32_t failed) {
  if (!api_->is_initialized()) return failed;
  void* thread_state = api_->this_thread_state();
  if (thread_state == nullptr) return 0;  // a thread Python does not know runs no Python code
  const GilForWalk gil(*api_);
  if (!gil.held()) return failed;
  const PendingError pending(*api_);
  std::vector<Frame> frames;
  ReadFrames(thread_state, &frames);
  const uint32_t context = Intern(frames, names, failed);
  for (const Frame& frame : frames) {
    api_->decref(frame.code);
    api_->decref(frame.frame);
  }
  return context;
}

void PythonStack::ReadFrames(void* thread_state, std::vector<Frame>* frames) const {
  for (void* frame = api_->thread_frame(thread_state); frame != nullptr;
       frame = api_->frame_back(frame)) {
    if (frames->size() == kMaxDepth) {
      api_->decref(frame);
      return;
    }
    const int position =
        api_->frame_offset != nullptr ? api_->frame_offset(frame) : api_->frame_line(frame);
    frames->push_back({frame, api_->frame_code(frame), position});
  }
}

uint32_t PythonStack::Intern(const std::vector<Frame>& frames, NameTable& names, uint32_t failed) {
  absl::MutexLock lock(&mutex_);
  uint32_t context = 0;
  for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
    if (frame->code == nullptr) return failed;
    auto [known, inserted] =
        frame_contexts_.try_emplace({context, frame->code, frame->position}, 0);
    if (inserted) {
      const CodeNames* code = NamesOf(frame->code);
      if (code == nullptr) {
        frame_contexts_.erase(known);
        return failed;
      }
      known->second =
          code->excluded ? context
                         : names.InternContext(context, absl::StrCat(code->file, ":",
                                                                     api_->frame_line(frame->frame),
                                                                     "@", code->function));
    }
    context = known->second;
  }
  return context;
}

const PythonStack::CodeNames* PythonStack::NamesOf(void* code) {
  if (auto known = code_names_.find(code); known != code_names_.end()) return &known->second;
  const auto read = [&](const char* attribute, std::string* text) {
    void* value = api_->get_attribute(code, attribute);
    const char* utf8 = value != nullptr ? api_->utf8(value) : nullptr;
    if (utf8 != nullptr) *text = utf8;
    if (value != nullptr) api_->decref(value);
    return utf8 != nullptr;
  };
  CodeNames names;
  if (!read("co_filename", &names.file) || !read("co_name", &names.function)) return nullptr;
  names.excluded = !excluded_prefix_.empty() && names.file.starts_with(excluded_prefix_);
  api_->incref(code);  // never freed, so never another code object at this address
  return &code_names_.emplace(code, std::move(names)).first->second;
}

}  // namespace protond::shim
