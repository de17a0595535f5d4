#include "view/tree/frame_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace protond::view {
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

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The length of the operator name at `at` ("operator<", "operator()", "operator new"), 0 when
// `at` starts no operator name. Its symbols are no brackets to match.
size_t OperatorNameLength(std::string_view name, size_t at) {
  constexpr std::string_view kOperator = "operator";
  if (name.substr(at, kOperator.size()) != kOperator) return 0;
  if (at > 0 && IsIdentifierChar(name[at - 1])) return 0;
  const size_t end = at + kOperator.size();
  const std::string_view rest = name.substr(end);
  if (rest.empty() || IsIdentifierChar(rest[0])) return 0;
  if (rest.substr(0, 2) == "()" || rest.substr(0, 2) == "[]") return kOperator.size() + 2;
  if (rest[0] == ' ') return kOperator.size() + 1;  // "operator new", "operator int"
  const size_t symbols = rest.find_first_not_of("+-*/%^&|~!=<>,");
  return kOperator.size() + (symbols == std::string_view::npos ? rest.size() : symbols);
}

// The end of the bracket group that opens at `open` (one past its closer), operator names inside
// it skipped; the end of `name` when it is not closed.
size_t GroupEnd(std::string_view name, size_t open) {
  int depth = 0;
  for (size_t i = open; i < name.size(); ++i) {
    if (const size_t length = OperatorNameLength(name, i); length > 0) {
      i += length - 1;
    } else if (name[i] == '<' || name[i] == '(' || name[i] == '[' || name[i] == '{') {
      ++depth;
    } else if ((name[i] == '>' || name[i] == ')' || name[i] == ']' || name[i] == '}') &&
               --depth == 0) {
      return i + 1;
    }
  }
  return name.size();
}

}  // namespace

absl::Status ChooseKernelNames(const std::string& flag, KernelNames* names) {
  const KernelNames chosen = flag == "--mangled" ? KernelNames::kMangled : KernelNames::kFull;
  if (*names != KernelNames::kShort && *names != chosen) {
    return absl::InvalidArgumentError("--full-names or --mangled, not both");
  }
  *names = chosen;
  return absl::OkStatus();
}

// One walk over the top level of `demangled`: template argument lists become "<...>", the other
// groups are copied whole except parameter lists, of which the last one is where the name ends;
// the return type ends at the last top-level space before it.
std::string ShortFunctionName(std::string_view demangled) {
  constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";
  std::string out;
  size_t name_start = 0;                // in `out`: after the last top-level space so far
  size_t name_end = std::string::npos;  // in `out`: where the last parameter list began
  size_t start_before_end = 0;          // name_start when that parameter list began
  for (size_t i = 0; i < demangled.size();) {
    const char c = demangled[i];
    if (const size_t length = OperatorNameLength(demangled, i); length > 0) {
      out.append(demangled.substr(i, length));
      i += length;
    } else if (c == ' ') {
      out += c;
      // "operator< <int>": the space only keeps two '<' apart; a return type ends before a name.
      if (demangled.substr(i + 1, 1) != "<") name_start = out.size();
      ++i;
    } else if (c == '<' || (c == '(' && demangled.substr(i, kAnonymousNamespace.size()) !=
                                            kAnonymousNamespace)) {
      if (c == '(') {
        name_end = out.size();
        start_before_end = name_start;
      }
      out += c == '<' ? "<...>" : "(...)";
      i = GroupEnd(demangled, i);
    } else if (c == '(' || c == '{' || c == '[') {
      const size_t end = GroupEnd(demangled, i);
      out.append(demangled.substr(i, end - i));
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  if (name_end == std::string::npos) return out;
  return out.substr(start_before_end, name_end - start_before_end);
}

std::string KernelName(const std::string& driver_name, KernelNames names) {
  if (names == KernelNames::kMangled) return driver_name;
  std::string demangled = DemangleFrameName(driver_name);
  if (names == KernelNames::kFull || demangled == driver_name) return demangled;
  return ShortFunctionName(demangled);
}

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

void RenameFrames(FrameFormat format, KernelNames names, v1::Tree* tree) {
  for (v1::TreeNode& node : *tree->mutable_nodes()) {
    *node.mutable_name() = FormatFrameName(KernelName(node.name(), names), format);
  }
}

}  // namespace protond::view
