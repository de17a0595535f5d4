// How protonctl names frames: C++ kernel names demangled, and proton-viewer's -f formats for
// Python and PC-sampling frames ("<path>/<file>:<line>@<function>"). Pure functions; no I/O.
#ifndef PROTOND_CLI_VIEWER_FRAME_NAMES_H_
#define PROTOND_CLI_VIEWER_FRAME_NAMES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::cli {

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

// The demangled form of an Itanium-mangled C++ name ("_Z..."); any other name as it is, and so
// is a name the demangler rejects.
std::string DemangleFrameName(const std::string& name);

// Every node's name demangled, then formatted.
void RenameFrames(FrameFormat format, bool demangle, v1::Tree* tree);

}  // namespace protond::cli

#endif  // PROTOND_CLI_VIEWER_FRAME_NAMES_H_
