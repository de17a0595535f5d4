// How protonctl names frames: C++ kernel names short, in full or mangled, and proton-viewer's -f
// formats for Python and PC-sampling frames ("<path>/<file>:<line>@<function>"). Pure functions; no
// I/O.
#ifndef PROTOND_VIEW_TREE_FRAME_NAMES_H_
#define PROTOND_VIEW_TREE_FRAME_NAMES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// proton-viewer's -f choices.
enum class FrameFormat {
  kFull,              // "/src/app/model.py:42@forward"
  kFileFunctionLine,  // "model.py:42@forward"
  kFunctionLine,      // "42@forward" (proton-viewer's name for it)
  kFileFunction,      // "model.py@forward"
  kSass,              // as kFull, with each sampled SASS instruction under its line ("0x0290")
};

// "full", "file_function_line", "function_line", "file_function" or "sass"; else
// InvalidArgumentError.
absl::StatusOr<FrameFormat> ParseFrameFormat(std::string_view text);

// `name` in `format` when it has the shape "<path>:<line>@<function>"; any other name (scopes,
// kernels) as it is.
std::string FormatFrameName(const std::string& name, FrameFormat format);

// How C++ kernel names are shown.
enum class KernelNames {
  kShort,    // the default: "at::native::vectorized_elementwise_kernel<...>"
  kFull,     // --full-names: demangled with return type, template arguments and parameters
  kMangled,  // --mangled: as the driver gave them ("_ZN2at6native29vectorized_...")
};

// `--full-names` or `--mangled` into `names`; InvalidArgumentError when the other was given too.
absl::Status ChooseKernelNames(const std::string& flag, KernelNames* names);

// The demangled form of an Itanium-mangled C++ name ("_Z..."); any other name as it is, and so
// is a name the demangler rejects.
std::string DemangleFrameName(const std::string& name);

// A demangled C++ function name as Nsight Systems and Perfetto show kernels: the qualified name
// alone, its return type and parameter list dropped and each template argument list written
// "<...>" ("void at::native::foo<4, at::native::Add<float> >(int, float*)" ->
// "at::native::foo<...>"). Operator names (operator<, operator()), lambdas ("{lambda(int)#1}")
// and "(anonymous namespace)" are kept whole. Meant for demangled names only: the kernel names
// of Triton and others are not C++ signatures, and KernelName leaves them as they are.
std::string ShortFunctionName(std::string_view demangled);

// `driver_name` (a frame's name as stored) as `names` asks: a name that demangles is shown short
// or in full; any other name, and every name with kMangled, as it is.
std::string KernelName(const std::string& driver_name, KernelNames names);

// Every node's name as `names` asks (KernelName), then formatted.
void RenameFrames(FrameFormat format, KernelNames names, v1::Tree* tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_FRAME_NAMES_H_
