"""A MessagePack decoder for the tests (msgpack.org's specification; no msgpack module is
installed here): every type a Hatchet profile can hold, so that a `.hatchet_msgpack` file is read
independently of the writer that made it."""
import struct


def _sized(kind, data, at, width):
    size = int.from_bytes(data[at:at + width], "big")
    return kind(data, at + width, size)


def _str(data, at, size):
    return data[at:at + size].decode(), at + size


def _array(data, at, size):
    items = []
    for _ in range(size):
        item, at = _value(data, at)
        items.append(item)
    return items, at


def _map(data, at, size):
    items = {}
    for _ in range(size):
        key, at = _value(data, at)
        items[key], at = _value(data, at)
    return items, at


_FIXED = {0xc0: None, 0xc2: False, 0xc3: True}
_NUMBERS = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
            0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}
_SIZED = {0xd9: (_str, 1), 0xda: (_str, 2), 0xdb: (_str, 4), 0xdc: (_array, 2),
          0xdd: (_array, 4), 0xde: (_map, 2), 0xdf: (_map, 4)}


def _value(data, at):
    tag = data[at]
    at += 1
    if tag <= 0x7f:
        return tag, at
    if tag >= 0xe0:
        return tag - 0x100, at
    if 0xa0 <= tag <= 0xbf:
        return _str(data, at, tag & 0x1f)
    if 0x90 <= tag <= 0x9f:
        return _array(data, at, tag & 0x0f)
    if 0x80 <= tag <= 0x8f:
        return _map(data, at, tag & 0x0f)
    if tag in _FIXED:
        return _FIXED[tag], at
    if tag in _NUMBERS:
        form = _NUMBERS[tag]
        return struct.unpack_from(form, data, at)[0], at + struct.calcsize(form)
    if tag in _SIZED:
        kind, width = _SIZED[tag]
        return _sized(kind, data, at, width)
    raise ValueError(f"unknown MessagePack tag 0x{tag:02x} at byte {at - 1}")


def unpack(data):
    """The one value `data` holds; ValueError if bytes are left over."""
    value, end = _value(data, 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the value")
    return value
