// Reads `nvdisasm -c` listings. A listing is one section per function:
//
//   //--------------------- .text.compute_blocks      --------------------------
//   	.section	.text.compute_blocks,"ax",@progbits
//           .global         compute_blocks
//   compute_blocks:
//           /*0000*/                   LDC R1, c[0x0][0x28] ;
//           /*0140*/               @P2 BRA `(.L_x_1) ;
//   .L_x_1:
//           /*01e0*/                   BSYNC B0 ;
//
// Only the lines that start with an offset comment are instructions; labels, directives and
// comments (line info with -g, the hex encodings of -hex) are not.
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "daemon/sass/sass_text.h"

namespace protond::sass {
namespace {

struct InstructionLine {
  uint64_t offset = 0;
  absl::string_view text;
};

// "/*0140*/   @P2 BRA `(.L_x_1) ;" -> 0x140 and "@P2 BRA `(.L_x_1)"; nothing for other lines.
std::optional<InstructionLine> ParseInstructionLine(absl::string_view line) {
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, "/*")) return std::nullopt;
  const size_t close = line.find("*/");
  if (close == absl::string_view::npos || close == 0) return std::nullopt;
  // Hex digits only: the hex encodings that -hex prints on lines of their own
  // ("/* 0x000fc40000000f00 */") are comments, not offsets.
  InstructionLine instruction;
  const char* end = line.data() + close;
  auto [last, error] = std::from_chars(line.data(), end, instruction.offset, 16);
  if (error != std::errc() || last != end) return std::nullopt;
  absl::string_view text = line.substr(close + 2);
  // SASS has no ";" of its own: it ends the instruction, and what follows is a comment.
  text = absl::StripAsciiWhitespace(text.substr(0, text.find(';')));
  if (text.empty()) return std::nullopt;
  instruction.text = text;
  return instruction;
}

// ".section	.text.compute_blocks,"ax",@progbits" -> ".text.compute_blocks".
std::optional<absl::string_view> SectionName(absl::string_view line) {
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, ".section") || line.empty() || !absl::ascii_isspace(line[0])) {
    return std::nullopt;
  }
  line = absl::StripLeadingAsciiWhitespace(line);
  return line.substr(0, line.find_first_of(", \t"));
}

}  // namespace

absl::StatusOr<std::map<uint64_t, std::string>> ParseNvdisasm(std::string_view listing,
                                                              std::string_view function) {
  // Debian's Abseil has a string_view of its own.
  const absl::string_view name(function.data(), function.size());
  const std::string wanted = absl::StrCat(".text.", name);
  std::vector<absl::string_view> functions;  // every function's, for the error that lists them
  bool found = false;
  bool inside = false;
  std::map<uint64_t, std::string> instructions;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(listing.data(), listing.size()), '\n')) {
    if (std::optional<absl::string_view> section = SectionName(line)) {
      inside = *section == wanted;
      found = found || inside;
      if (absl::ConsumePrefix(&*section, ".text.")) functions.push_back(*section);
      continue;
    }
    if (!inside) continue;
    std::optional<InstructionLine> instruction = ParseInstructionLine(line);
    if (!instruction) continue;
    if (!instructions.emplace(instruction->offset, instruction->text).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "nvdisasm listing: offset 0x%04x appears twice in %s", instruction->offset, wanted));
    }
  }
  if (!found) {
    return absl::NotFoundError(absl::StrCat(
        "nvdisasm listing has no function ", name, " (no section ", wanted,
        "); its functions: ", functions.empty() ? "none" : absl::StrJoin(functions, ", ")));
  }
  return instructions;
}

}  // namespace protond::sass
