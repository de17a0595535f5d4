// PythonStack against a real CPython embedded in the test: a program with known frames calls a
// builtin that asks for its context, with the GIL held, with the GIL let go, and from a thread
// Python does not know.
#include "shim/python/python_stack.h"

#include <Python.h>

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

// The embedded interpreter keeps its objects to the end of the process, on purpose; LeakSanitizer
// (the ASan build) would call them leaks.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpython3\n"; }

namespace protond::shim {
namespace {

using ::testing::ElementsAre;

constexpr uint32_t kFailed = 0xFFFFFFFF;

NameTable* g_names = nullptr;
PythonStack* g_stack = nullptr;
std::vector<uint32_t>* g_contexts = nullptr;

// probe.here(): the context of its caller's stack, with the GIL held.
PyObject* Here(PyObject*, PyObject*) {
  g_contexts->push_back(g_stack->ContextOfThisThread(*g_names, kFailed));
  Py_RETURN_NONE;
}

// probe.here_without_gil(): the same, from inside a C call that let the GIL go.
PyObject* HereWithoutGil(PyObject*, PyObject*) {
  uint32_t context = 0;
  Py_BEGIN_ALLOW_THREADS context = g_stack->ContextOfThisThread(*g_names, kFailed);
  Py_END_ALLOW_THREADS g_contexts->push_back(context);
  Py_RETURN_NONE;
}

// probe.from_foreign_thread(): asked from a thread Python does not know, while this one holds
// the GIL.
PyObject* FromForeignThread(PyObject*, PyObject*) {
  uint32_t context = 0;
  std::thread([&] { context = g_stack->ContextOfThisThread(*g_names, kFailed); }).join();
  g_contexts->push_back(context);
  Py_RETURN_NONE;
}

PyMethodDef kProbeMethods[] = {
    {"here", Here, METH_NOARGS, nullptr},
    {"here_without_gil", HereWithoutGil, METH_NOARGS, nullptr},
    {"from_foreign_thread", FromForeignThread, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};
PyModuleDef kProbeModule = {
    PyModuleDef_HEAD_INIT, "probe", nullptr, -1, kProbeMethods, nullptr, nullptr, nullptr, nullptr};

PyObject* MakeProbeModule() { return PyModule_Create(&kProbeModule); }

class PythonStackTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PyImport_AppendInittab("probe", MakeProbeModule);
    Py_InitializeEx(0);
  }

  void SetUp() override {
    std::string error;
    stack_ = PythonStack::Resolve("/excluded/", &error);
    ASSERT_NE(stack_, nullptr) << error;
    g_names = &names_;
    g_stack = stack_.get();
    g_contexts = &contexts_;
  }

  // Runs `code` as the file `file_name` (so that its frames name it).
  void Run(const std::string& code, const std::string& file_name) {
    PyObject* compiled = Py_CompileString(code.c_str(), file_name.c_str(), Py_file_input);
    ASSERT_NE(compiled, nullptr);
    PyObject* globals = PyDict_New();
    PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
    PyObject* result = PyEval_EvalCode(compiled, globals, globals);
    if (result == nullptr) PyErr_Print();
    ASSERT_NE(result, nullptr);
    Py_DECREF(result);
    Py_DECREF(globals);
    Py_DECREF(compiled);
  }

  // The names from ROOT down to `context`.
  std::vector<std::string> Path(uint32_t context) {
    if (context == kFailed) return {"<failed>"};
    std::vector<std::string> path;
    for (; context != 0; context = names_.Context(context)->parent_id) {
      path.insert(path.begin(), names_.Context(context)->name);
    }
    return path;
  }

  NameTable names_;
  std::unique_ptr<PythonStack> stack_;
  std::vector<uint32_t> contexts_;
};

constexpr char kProgram[] = R"(import probe
def inner(call):
    call()
def outer(call):
    inner(call)
outer(probe.here)
outer(probe.here)
outer(probe.here_without_gil)
)";

TEST_F(PythonStackTest, NamesTheCallersFramesOutermostFirstWithOrWithoutTheGil) {
  Run(kProgram, "/app/train.py");
  ASSERT_EQ(contexts_.size(), 3u);
  EXPECT_THAT(Path(contexts_[0]), ElementsAre("/app/train.py:6@<module>", "/app/train.py:5@outer",
                                              "/app/train.py:3@inner"));
  EXPECT_THAT(Path(contexts_[1]), ElementsAre("/app/train.py:7@<module>", "/app/train.py:5@outer",
                                              "/app/train.py:3@inner"));
  EXPECT_THAT(Path(contexts_[2]), ElementsAre("/app/train.py:8@<module>", "/app/train.py:5@outer",
                                              "/app/train.py:3@inner"));
  // The frames below the module's line are one context each, whatever the call above them.
  EXPECT_EQ(names_.Context(contexts_[0])->name, names_.Context(contexts_[1])->name);
}

TEST_F(PythonStackTest, TheSameStackIsTheSameContext) {
  Run("import probe\nfor _ in range(3):\n    probe.here()\n", "/app/loop.py");
  EXPECT_THAT(contexts_, ElementsAre(contexts_[0], contexts_[0], contexts_[0]));
  EXPECT_THAT(Path(contexts_[0]), ElementsAre("/app/loop.py:3@<module>"));
}

// Frames are told apart by their instruction offset where Python has one: two calls on one line
// are still one frame name, one context.
TEST_F(PythonStackTest, TwoCallsOnOneLineAreOneContext) {
  Run("import probe\nprobe.here(); probe.here()\n", "/app/line.py");
  ASSERT_EQ(contexts_.size(), 2u);
  EXPECT_EQ(contexts_[0], contexts_[1]);
  EXPECT_THAT(Path(contexts_[0]), ElementsAre("/app/line.py:2@<module>"));
}

TEST_F(PythonStackTest, FramesOfTheExcludedFilesAreLeftOut) {
  Run(R"(import probe
exec(compile("def hook(call):\n    call()\n", "/excluded/hook.py", "exec"))
def user():
    hook(probe.here)
user()
)",
      "/app/user.py");
  ASSERT_EQ(contexts_.size(), 1u);
  EXPECT_THAT(Path(contexts_[0]), ElementsAre("/app/user.py:5@<module>", "/app/user.py:4@user"));
}

TEST_F(PythonStackTest, AThreadPythonDoesNotKnowIsRoot) {
  Run("import probe\nprobe.from_foreign_thread()\n", "/app/foreign.py");
  EXPECT_THAT(contexts_, ElementsAre(0u));
}

TEST_F(PythonStackTest, APendingExceptionOutlivesTheWalk) {
  Run(R"(import probe
try:
    raise ValueError("kept")
except ValueError as error:
    probe.here()
    assert str(error) == "kept"
)",
      "/app/pending.py");
  ASSERT_EQ(contexts_.size(), 1u);
  EXPECT_THAT(Path(contexts_[0]), ElementsAre("/app/pending.py:5@<module>"));
}

}  // namespace
}  // namespace protond::shim
