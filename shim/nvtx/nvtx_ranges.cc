#include "shim/nvtx/nvtx_ranges.h"

#include <cstdint>
#include <string_view>

#include "common/record/record_format.h"
#include "protond/shim.h"

namespace protond::shim {
namespace {

// Room for a name of kMaxNameBytes (longer names are truncated by the recorder anyway).
constexpr size_t kNameBufferBytes = record::kMaxNameBytes + 1;

// NVTX's push returns the 0-based level of the new range and pop the level it closed; both count
// only NVTX's own ranges, and a negative value means an error.
thread_local int tl_nvtx_depth = 0;

int Push(const char* name) {
  if (name == nullptr || *name == '\0') name = kUnnamedNvtxRange;
  const protond_result result = protond_scope_enter(name);
  if (result == PROTOND_ERR_INVALID_ARGUMENT) return -1;
  return tl_nvtx_depth++;
}

int NVTX_API RangePushA(const char* message) { return Push(message); }

int NVTX_API RangePushW(const wchar_t* message) {
  if (message == nullptr) return Push(nullptr);
  char name[kNameBufferBytes];
  WideToUtf8(message, name, sizeof(name));
  return Push(name);
}

int NVTX_API RangePushEx(const nvtxEventAttributes_t* attributes) {
  char buffer[kNameBufferBytes];
  return Push(NvtxRangeName(attributes, buffer, sizeof(buffer)));
}

// A pop with no NVTX range open leaves the program's own scopes alone.
int NVTX_API RangePop() {
  if (tl_nvtx_depth == 0) return -1;
  protond_scope_exit(nullptr);
  return --tl_nvtx_depth;
}

// Points one entry of an NVTX callback table at a handler.
template <typename Handler>
void Install(NvtxFunctionTable table, unsigned int size, NvtxCallbackIdCore id, Handler handler) {
  if (static_cast<unsigned int>(id) < size && table[id] != nullptr) {
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(handler);
  }
}

size_t Utf8Length(uint32_t code_point) {
  return code_point < 0x80 ? 1 : code_point < 0x800 ? 2 : code_point < 0x10000 ? 3 : 4;
}

}  // namespace

void WideToUtf8(const wchar_t* text, char* out, size_t out_bytes) {
  if (out_bytes == 0) return;
  size_t used = 0;
  for (; *text != L'\0'; ++text) {
    auto code_point = static_cast<uint32_t>(*text);
    if (code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
      code_point = 0xFFFD;
    }
    const size_t length = Utf8Length(code_point);
    if (used + length + 1 > out_bytes) break;
    if (length == 1) {
      out[used++] = static_cast<char>(code_point);
      continue;
    }
    static constexpr uint8_t kLeadBits[] = {0, 0, 0xC0, 0xE0, 0xF0};
    out[used] = static_cast<char>(kLeadBits[length] | (code_point >> (6 * (length - 1))));
    for (size_t i = 1; i < length; ++i) {
      out[used + i] = static_cast<char>(0x80 | ((code_point >> (6 * (length - 1 - i))) & 0x3F));
    }
    used += length;
  }
  out[used] = '\0';
}

const char* NvtxRangeName(const nvtxEventAttributes_t* attributes, char* buffer,
                          size_t buffer_bytes) {
  if (attributes == nullptr) return kUnnamedNvtxRange;
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii != nullptr && *attributes->message.ascii != '\0'
                 ? attributes->message.ascii
                 : kUnnamedNvtxRange;
    case NVTX_MESSAGE_TYPE_UNICODE:
      if (attributes->message.unicode == nullptr || *attributes->message.unicode == L'\0') break;
      WideToUtf8(attributes->message.unicode, buffer, buffer_bytes);
      return buffer;
    default:  // no message, or a registered string the shim never saw registered
      break;
  }
  return kUnnamedNvtxRange;
}

int InstallNvtxRanges(NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 1;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0 ||
      table == nullptr) {
    return 1;
  }
  Install(table, size, NVTX_CBID_CORE_RangePushA, RangePushA);
  Install(table, size, NVTX_CBID_CORE_RangePushW, RangePushW);
  Install(table, size, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  Install(table, size, NVTX_CBID_CORE_RangePop, RangePop);
  return 1;
}

}  // namespace protond::shim
