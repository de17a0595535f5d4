#include "cli/viewer/frame_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace protond::cli {
namespace {

// Debian's Abseil has its own string_view type.
struct SourceFrame {
  absl::string_view path;  // "/src/app/model.py"
  absl::string_view line;  // "42"
  absl::string_view function;
};

// "<path>:<line>@<function>", the line all digits; false for any other name.
bool ParseSourceFrame(absl::string_view name, SourceFrame* frame) {
  const size_t at = name.find('@');
  if (at == absl::string_view::npos) return false;
  const size_t colon = name.rfind(':', at);
  if (colon == absl::string_view::npos || colon + 1 == at) return false;
  const absl::string_view line = name.substr(colon + 1, at - colon - 1);
  for (char c : line) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  *frame = {name.substr(0, colon), line, name.substr(at + 1)};
  return true;
}

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<FrameFormat> ParseFrameFormat(std::string_view text) {
  if (text == "full") return FrameFormat::kFull;
  if (text == "file_function_line") return FrameFormat::kFileFunctionLine;
  if (text == "function_line") return FrameFormat::kFunctionLine;
  if (text == "file_function") return FrameFormat::kFileFunction;
  if (text == "sass") return FrameFormat::kSass;
  return absl::InvalidArgumentError(
      absl::StrCat("-f is full, file_function_line, function_line, file_function or sass, not '",
                   std::string(text), "'"));
}

std::string FormatFrameName(const std::string& name, FrameFormat format) {
  SourceFrame frame;
  if (!ParseSourceFrame(name, &frame)) return name;
  switch (format) {
    case FrameFormat::kFileFunctionLine:
      return absl::StrCat(BaseName(frame.path), ":", frame.line, "@", frame.function);
    case FrameFormat::kFunctionLine:
      return absl::StrCat(frame.line, "@", frame.function);
    case FrameFormat::kFileFunction:
      return absl::StrCat(BaseName(frame.path), "@", frame.function);
    case FrameFormat::kFull:
    case FrameFormat::kSass:
      break;
  }
  return name;
}

std::string DemangleFrameName(const std::string& name) {
  if (!absl::StartsWith(name, "_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled != nullptr ? std::string(demangled.get()) : name;
}

void RenameFrames(FrameFormat format, bool demangle, v1::Tree* tree) {
  for (v1::TreeNode& node : *tree->mutable_nodes()) {
    if (demangle) *node.mutable_name() = DemangleFrameName(node.name());
    *node.mutable_name() = FormatFrameName(node.name(), format);
  }
}

}  // namespace protond::cli
