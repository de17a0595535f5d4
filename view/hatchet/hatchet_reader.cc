#include "view/hatchet/hatchet_reader.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "view/hatchet/internal/hatchet_tree.h"

namespace protond::view {
namespace {

using Json = nlohmann::json;

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string WithoutPrefix(const Json::exception& error) {
  std::string message = error.what();
  const size_t prefix_end = message.find("] ");
  if (prefix_end != std::string::npos) message.erase(0, prefix_end + 2);
  return message;
}

// nlohmann counts the bytes it read (1 for the first one). A number too large for a double
// ("1e999") is not a parse_error but an out_of_range error (406): every exception of the parser
// is an answer, or a file would end protonctl in std::terminate.
absl::StatusOr<Json> ParseJson(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& error) {
    return absl::InvalidArgumentError(absl::StrFormat("not JSON: byte offset %d: %s",
                                                      error.byte == 0 ? 0 : error.byte - 1,
                                                      WithoutPrefix(error)));
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("unreadable JSON: ", WithoutPrefix(error)));
  }
}

// `tree`, or its error with `prefix` in front of the message.
absl::StatusOr<v1::Tree> Prefixed(absl::StatusOr<v1::Tree> tree, const std::string& prefix) {
  if (tree.ok()) return tree;
  return absl::Status(tree.status().code(), absl::StrCat(prefix, tree.status().message()));
}

}  // namespace

absl::StatusOr<v1::Tree> ParseHatchet(std::string_view json_untrusted) {
  ASSIGN_OR_RETURN(const Json document, ParseJson(json_untrusted));
  return hatchet_tree::BuildTree(document);
}

absl::StatusOr<v1::Tree> ReadHatchetFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return absl::DataLossError(absl::StrCat(path, ": cannot read the file"));
  return Prefixed(ParseHatchet(text.str()), absl::StrCat(path, ": "));
}

}  // namespace protond::view
