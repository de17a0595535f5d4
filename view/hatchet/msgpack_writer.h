// A MessagePack encoder for the few types a Hatchet tree needs (msgpack.org's specification):
// integers, doubles, strings, and array and map headers. Each value takes its smallest form, as
// Proton's own writer encodes them, except doubles, which are always float64 (0xcb) as there, so
// that a value reads back exactly. Debian 12 installs no MessagePack library by default
// (libmsgpack-dev is an extra package); these ~70 lines are what protond needs of one.
#ifndef PROTOND_VIEW_HATCHET_MSGPACK_WRITER_H_
#define PROTOND_VIEW_HATCHET_MSGPACK_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace protond::view {

// Appends encoded values to a byte string it owns. An array or map header is followed by its
// `size` elements (a map's as key, value, key, value, ...), which the caller appends next.
class MsgPackWriter {
 public:
  void UInt(uint64_t value);
  void Int(int64_t value);
  void Double(double value);
  void Str(std::string_view value);
  void ArrayHeader(uint32_t size);
  void MapHeader(uint32_t size);

  const std::string& bytes() const { return bytes_; }
  std::string Take() && { return std::move(bytes_); }

 private:
  // `value`'s low `bytes` bytes, most significant first (MessagePack is big-endian).
  void BigEndian(uint64_t value, int bytes);
  // A header of the fix form (`fix_tag` | size) up to `fix_max`, else 16- or 32-bit.
  void Header(uint32_t size, uint8_t fix_tag, uint32_t fix_max, uint8_t tag16, uint8_t tag32);

  std::string bytes_;
};

}  // namespace protond::view

#endif  // PROTOND_VIEW_HATCHET_MSGPACK_WRITER_H_
