#include "view/hatchet/msgpack_writer.h"

#include <bit>

namespace protond::view {

void MsgPackWriter::BigEndian(uint64_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    bytes_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void MsgPackWriter::UInt(uint64_t value) {
  if (value <= 0x7f) {
    bytes_.push_back(static_cast<char>(value));  // positive fixint
  } else if (value <= 0xff) {
    bytes_.push_back(static_cast<char>(0xcc));
    BigEndian(value, 1);
  } else if (value <= 0xffff) {
    bytes_.push_back(static_cast<char>(0xcd));
    BigEndian(value, 2);
  } else if (value <= 0xffffffffu) {
    bytes_.push_back(static_cast<char>(0xce));
    BigEndian(value, 4);
  } else {
    bytes_.push_back(static_cast<char>(0xcf));
    BigEndian(value, 8);
  }
}

void MsgPackWriter::Int(int64_t value) {
  if (value >= 0) return UInt(static_cast<uint64_t>(value));
  const auto bits = static_cast<uint64_t>(value);  // two's complement: the low bytes encode it
  if (value >= -32) {
    bytes_.push_back(static_cast<char>(bits & 0xff));  // negative fixint, 0xe0..0xff
  } else if (value >= INT8_MIN) {
    bytes_.push_back(static_cast<char>(0xd0));
    BigEndian(bits, 1);
  } else if (value >= INT16_MIN) {
    bytes_.push_back(static_cast<char>(0xd1));
    BigEndian(bits, 2);
  } else if (value >= INT32_MIN) {
    bytes_.push_back(static_cast<char>(0xd2));
    BigEndian(bits, 4);
  } else {
    bytes_.push_back(static_cast<char>(0xd3));
    BigEndian(bits, 8);
  }
}

void MsgPackWriter::Double(double value) {
  bytes_.push_back(static_cast<char>(0xcb));
  BigEndian(std::bit_cast<uint64_t>(value), 8);
}

void MsgPackWriter::Str(std::string_view value) {
  const auto size = static_cast<uint32_t>(value.size());
  if (size <= 31) {
    bytes_.push_back(static_cast<char>(0xa0 | size));
  } else if (size <= 0xff) {
    bytes_.push_back(static_cast<char>(0xd9));
    BigEndian(size, 1);
  } else {
    Header(size, 0, 0, 0xda, 0xdb);  // no fix form left: str 16 or str 32
  }
  bytes_.append(value);
}

void MsgPackWriter::Header(uint32_t size, uint8_t fix_tag, uint32_t fix_max, uint8_t tag16,
                           uint8_t tag32) {
  if (fix_tag != 0 && size <= fix_max) {
    bytes_.push_back(static_cast<char>(fix_tag | size));
  } else if (size <= 0xffff) {
    bytes_.push_back(static_cast<char>(tag16));
    BigEndian(size, 2);
  } else {
    bytes_.push_back(static_cast<char>(tag32));
    BigEndian(size, 4);
  }
}

void MsgPackWriter::ArrayHeader(uint32_t size) { Header(size, 0x90, 15, 0xdc, 0xdd); }

void MsgPackWriter::MapHeader(uint32_t size) { Header(size, 0x80, 15, 0xde, 0xdf); }

}  // namespace protond::view
