#include "view/hatchet/hatchet_reader.h"

#include <pthread.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "common/tree/tree_depth.h"
#include "view/hatchet/internal/hatchet_tree.h"
#include "view/hatchet/internal/msgpack_scan.h"

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

// The nesting of a tree one level deeper than kMaxTreeDepth (so that the tree's own check, not
// this one, names a tree that is too deep): the document's array is level 1, a node at depth d is
// a map at level 2 + 2d (its parent's "children" array in between), and inside it the "metrics"
// map and a vector metric's array take two levels more.
constexpr int kMaxMsgPackNesting = 2 + 2 * (kMaxTreeDepth + 1) + 2;

// After CheckMsgPack nothing is left for nlohmann to refuse, but an exception must never escape
// to end protonctl in std::terminate, so any is still an answer.
absl::StatusOr<Json> FromMsgPack(std::string_view bytes) {
  try {
    return Json::from_msgpack(bytes.begin(), bytes.end());
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("unreadable: ", WithoutPrefix(error)));
  }
}

// nlohmann's decoder recurses once per level of nesting, which CheckMsgPack bounds at
// kMaxMsgPackNesting. A level takes about 100 bytes of stack in an optimized build but 1 to 2 KiB
// under AddressSanitizer, where the deepest tree allowed overflows a main thread's 8 MiB, so the
// decoder runs on a thread of its own with room for that nesting, whatever the caller's stack.
constexpr size_t kDecoderStackBytes = size_t{kMaxMsgPackNesting} * 4096;

absl::StatusOr<Json> FromMsgPackOnOwnStack(std::string_view bytes) {
  struct Decoding {
    std::string_view bytes;
    absl::StatusOr<Json> document;
  } decoding = {bytes, absl::InternalError("the decoder did not run")};
  auto decode = [](void* argument) -> void* {
    Decoding* decoding = static_cast<Decoding*>(argument);
    decoding->document = FromMsgPack(decoding->bytes);
    return nullptr;
  };
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kDecoderStackBytes);
  pthread_t thread;
  const int error = pthread_create(&thread, &attributes, decode, &decoding);
  pthread_attr_destroy(&attributes);
  if (error != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start a thread to decode MessagePack: ", std::strerror(error)));
  }
  pthread_join(thread, nullptr);
  return std::move(decoding.document);
}

absl::StatusOr<Json> DecodeMsgPack(std::string_view bytes) {
  RETURN_IF_ERROR(msgpack_scan::CheckMsgPack(bytes, kMaxMsgPackNesting));
  return FromMsgPackOnOwnStack(bytes);
}

// `tree`, or its error with `prefix` in front of the message.
absl::StatusOr<v1::Tree> Prefixed(absl::StatusOr<v1::Tree> tree, const std::string& prefix) {
  if (tree.ok()) return tree;
  return absl::Status(tree.status().code(), absl::StrCat(prefix, tree.status().message()));
}

absl::StatusOr<v1::Tree> TreeOfMsgPack(std::string_view bytes) {
  ASSIGN_OR_RETURN(const Json document, DecodeMsgPack(bytes));
  return hatchet_tree::BuildTree(document);
}

bool StartsWithMsgPackArray(std::string_view bytes) {
  if (bytes.empty()) return false;
  const uint8_t first = static_cast<uint8_t>(bytes[0]);
  return (first >= 0x90 && first <= 0x9f) || first == 0xdc || first == 0xdd;
}

}  // namespace

absl::StatusOr<v1::Tree> ParseHatchet(std::string_view json_untrusted) {
  ASSIGN_OR_RETURN(const Json document, ParseJson(json_untrusted));
  return hatchet_tree::BuildTree(document);
}

absl::StatusOr<v1::Tree> ParseHatchetMsgPack(std::string_view msgpack_untrusted) {
  return Prefixed(TreeOfMsgPack(msgpack_untrusted), "MessagePack: ");
}

absl::StatusOr<v1::Tree> ParseHatchetProfile(std::string_view bytes_untrusted) {
  if (StartsWithMsgPackArray(bytes_untrusted)) return ParseHatchetMsgPack(bytes_untrusted);
  return ParseHatchet(bytes_untrusted);
}

absl::StatusOr<v1::Tree> ReadHatchetFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return absl::DataLossError(absl::StrCat(path, ": cannot read the file"));
  return Prefixed(ParseHatchetProfile(text.str()), absl::StrCat(path, ": "));
}

}  // namespace protond::view
