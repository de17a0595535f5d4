#include "view/hatchet/internal/msgpack_scan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"
#include "common/text/utf8.h"

namespace protond::view::msgpack_scan {
namespace {

enum class Kind { kScalar, kString, kArray, kMap };

// One value's header, from its first byte (msgpack.org's specification): what it is, how many
// bytes follow the first one before its payload (`length_bytes`, a big-endian length or count) and,
// for a scalar, how many payload bytes it has.
struct Header {
  Kind kind;
  const char* what;  // for errors: "an integer", "a map", ...
  int length_bytes = 0;
  uint32_t fixed_length = 0;  // a fix form's length, or a scalar's payload size
};

absl::StatusOr<Header> HeaderOf(uint8_t first) {
  if (first <= 0x7f || first >= 0xe0) return Header{Kind::kScalar, "an integer"};
  if (first <= 0x8f) return Header{Kind::kMap, "a map", 0, first & 0x0fu};
  if (first <= 0x9f) return Header{Kind::kArray, "an array", 0, first & 0x0fu};
  if (first <= 0xbf) return Header{Kind::kString, "a string", 0, first & 0x1fu};
  // uint 8 to uint 64 (0xcc-0xcf) and int 8 to int 64 (0xd0-0xd3): 1, 2, 4 or 8 bytes.
  if (first >= 0xcc && first <= 0xd3) {
    return Header{Kind::kScalar, "an integer", 0, 1u << (first & 0x03u)};
  }
  switch (first) {
    case 0xc0:
      return Header{Kind::kScalar, "nil"};
    case 0xc2:
    case 0xc3:
      return Header{Kind::kScalar, "a boolean"};
    case 0xca:
      return Header{Kind::kScalar, "a float", 0, 4};
    case 0xcb:
      return Header{Kind::kScalar, "a float", 0, 8};
    case 0xd9:
      return Header{Kind::kString, "a string", 1};
    case 0xda:
      return Header{Kind::kString, "a string", 2};
    case 0xdb:
      return Header{Kind::kString, "a string", 4};
    case 0xdc:
      return Header{Kind::kArray, "an array", 2};
    case 0xdd:
      return Header{Kind::kArray, "an array", 4};
    case 0xde:
      return Header{Kind::kMap, "a map", 2};
    case 0xdf:
      return Header{Kind::kMap, "a map", 4};
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return absl::InvalidArgumentError(absl::StrFormat(
          "binary data (type byte 0x%02x) is not part of a Hatchet profile", first));
    case 0xc1:
      return absl::InvalidArgumentError("type byte 0xc1 is never used in MessagePack");
    default:  // 0xc7-0xc9, 0xd4-0xd8
      return absl::InvalidArgumentError(absl::StrFormat(
          "an extension type (type byte 0x%02x) is not part of a Hatchet profile", first));
  }
}

// An open array or map: how many items are still to come (a map's entries count twice, key and
// value), and whether the next one is a map's key.
struct Level {
  uint64_t items_left;
  bool is_map;
  bool NextIsKey() const { return is_map && items_left % 2 == 0; }
};

class Scanner {
 public:
  Scanner(std::string_view bytes, int max_nesting) : bytes_(bytes), max_nesting_(max_nesting) {}

  absl::Status Check() {
    // A level of one item stands for the document itself; it is not counted as nesting.
    std::vector<Level> levels = {{1, false}};
    while (!levels.empty()) {
      if (levels.back().items_left == 0) {
        levels.pop_back();
        continue;
      }
      const size_t start = offset_;
      absl::Status status = CheckValue(levels);
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("byte offset ", start, ": ", status.message()));
      }
    }
    if (offset_ != bytes_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("byte offset ", offset_, ": ",
                                                     bytes_.size() - offset_,
                                                     " bytes after the end of the profile"));
    }
    return absl::OkStatus();
  }

 private:
  size_t BytesLeft() const { return bytes_.size() - offset_; }

  // The value at offset_: steps over a scalar or string, or opens an array or map in `levels`.
  absl::Status CheckValue(std::vector<Level>& levels) {
    if (BytesLeft() == 0)
      return absl::InvalidArgumentError("the input ends where a value should start");
    const bool is_key = levels.back().NextIsKey();
    --levels.back().items_left;
    ASSIGN_OR_RETURN(const Header header, HeaderOf(static_cast<uint8_t>(bytes_[offset_])));
    if (is_key && header.kind != Kind::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat("a map key must be a string, not ", header.what));
    }
    ++offset_;
    ASSIGN_OR_RETURN(const uint64_t length, ReadLength(header));
    switch (header.kind) {
      case Kind::kScalar:
        return Skip(length, header.what);
      case Kind::kString:
        return SkipString(length);
      case Kind::kArray:
      case Kind::kMap:
        return Open(header, length, levels);
    }
    return absl::OkStatus();
  }

  // The length or count after the first byte (big-endian), or the header's fixed one.
  absl::StatusOr<uint64_t> ReadLength(const Header& header) {
    if (header.length_bytes == 0) return header.fixed_length;
    if (BytesLeft() < static_cast<size_t>(header.length_bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the input ends inside ", header.what, "'s length"));
    }
    uint64_t length = 0;
    for (int i = 0; i < header.length_bytes; ++i) {
      length = (length << 8) | static_cast<uint8_t>(bytes_[offset_++]);
    }
    return length;
  }

  absl::Status Skip(uint64_t size, const char* what) {
    if (size > BytesLeft()) {
      return absl::InvalidArgumentError(absl::StrCat("the input ends inside ", what, ": ", size,
                                                     " bytes needed, ", BytesLeft(), " left"));
    }
    offset_ += size;
    return absl::OkStatus();
  }

  // nlohmann keeps a string's bytes as they are, and would throw when an error or an export
  // printed one that is not UTF-8: such names are refused here, where the offset is known.
  absl::Status SkipString(uint64_t length) {
    const size_t start = offset_;
    RETURN_IF_ERROR(Skip(length, "a string"));
    const size_t invalid = text::FindInvalidUtf8(absl::string_view(bytes_.data() + start, length));
    if (invalid == absl::string_view::npos) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("a string that is not UTF-8 (at its byte ", invalid, ")"));
  }

  // Every item takes at least one byte, so a count past the bytes left is a lie that must not
  // reach the decoder, which would reserve room for it.
  absl::Status Open(const Header& header, uint64_t count, std::vector<Level>& levels) {
    const bool is_map = header.kind == Kind::kMap;
    const uint64_t items = is_map ? 2 * count : count;
    if (items > BytesLeft()) {
      return absl::InvalidArgumentError(
          absl::StrCat(header.what, " of ", count, is_map ? " entries" : " items",
                       " needs at least ", items, " bytes, but ", BytesLeft(), " are left"));
    }
    levels.push_back({items, is_map});
    if (static_cast<int>(levels.size()) - 1 > max_nesting_) {
      return absl::InvalidArgumentError(
          absl::StrCat(header.what, " nested deeper than ", max_nesting_, " arrays and maps"));
    }
    return absl::OkStatus();
  }

  const std::string_view bytes_;
  const int max_nesting_;
  size_t offset_ = 0;
};

}  // namespace

absl::Status CheckMsgPack(std::string_view bytes_untrusted, int max_nesting) {
  return Scanner(bytes_untrusted, max_nesting).Check();
}

}  // namespace protond::view::msgpack_scan
