#include "shim/nvtx/nvtx_ranges.h"

#include <stdlib.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protond/shim.h"

namespace {

using ::testing::ElementsAre;

// The shim's C ABI as the handlers see it: a scope stack that logs what it was asked.
std::vector<std::string> g_calls;
std::vector<std::string> g_stack;

}  // namespace

extern "C" protond_result protond_scope_enter(const char* name) {
  g_calls.push_back(std::string("enter ") + name);
  g_stack.push_back(name);
  return PROTOND_INACTIVE;
}

extern "C" protond_result protond_scope_exit(const char* name) {
  g_calls.push_back(name == nullptr ? "exit" : std::string("exit ") + name);
  if (g_stack.empty()) return PROTOND_ERR_NO_SCOPE;
  g_stack.pop_back();
  return PROTOND_INACTIVE;
}

namespace protond::shim {
namespace {

std::string Utf8(const wchar_t* text, size_t bytes = 64) {
  std::vector<char> out(bytes, 'x');
  WideToUtf8(text, out.data(), out.size());
  return out.data();
}

TEST(WideToUtf8, EncodesEveryLength) {
  EXPECT_EQ(Utf8(L"step"), "step");
  EXPECT_EQ(Utf8(L"\u00e9t\u00e9"), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(Utf8(L"\u20ac"), "\xe2\x82\xac");
  EXPECT_EQ(Utf8(L"\U0001F600"), "\xf0\x9f\x98\x80");
}

TEST(WideToUtf8, ReplacesInvalidCodePoints) {
  const wchar_t text[] = {static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000), L'a', 0};
  EXPECT_EQ(Utf8(text),
            "\xef\xbf\xbd\xef\xbf\xbd"
            "a");
}

TEST(WideToUtf8, TruncatesAtACharacterBoundary) {
  EXPECT_EQ(Utf8(L"ab\u20ac", 5), "ab");  // the euro sign needs 3 bytes + NUL
  EXPECT_EQ(Utf8(L"abc", 1), "");
}

TEST(NvtxRangeName, ReadsAsciiAndWideMessages) {
  char buffer[64];
  nvtxEventAttributes_t attributes = {};
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "forward";
  EXPECT_STREQ(NvtxRangeName(&attributes, buffer, sizeof(buffer)), "forward");
  attributes.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  attributes.message.unicode = L"r\u00fcckw\u00e4rts";
  EXPECT_STREQ(NvtxRangeName(&attributes, buffer, sizeof(buffer)),
               "r\xc3\xbc"
               "ckw\xc3\xa4"
               "rts");
}

TEST(NvtxRangeName, NamesWhatItCannotRead) {
  char buffer[64];
  nvtxEventAttributes_t attributes = {};
  EXPECT_STREQ(NvtxRangeName(nullptr, buffer, sizeof(buffer)), kUnnamedNvtxRange);
  EXPECT_STREQ(NvtxRangeName(&attributes, buffer, sizeof(buffer)), kUnnamedNvtxRange);
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "";
  EXPECT_STREQ(NvtxRangeName(&attributes, buffer, sizeof(buffer)), kUnnamedNvtxRange);
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = nullptr;
  EXPECT_STREQ(NvtxRangeName(&attributes, buffer, sizeof(buffer)), kUnnamedNvtxRange);
}

TEST(NvtxRangesEnabled, FollowsTritonEnableNvtx) {
  unsetenv("TRITON_ENABLE_NVTX");
  EXPECT_TRUE(NvtxRangesEnabled());
  for (const char* on : {"1", "true", "ON"}) {
    setenv("TRITON_ENABLE_NVTX", on, 1);
    EXPECT_TRUE(NvtxRangesEnabled()) << on;
  }
  for (const char* off : {"0", "false", "no", ""}) {
    setenv("TRITON_ENABLE_NVTX", off, 1);
    EXPECT_FALSE(NvtxRangesEnabled()) << off;
  }
  unsetenv("TRITON_ENABLE_NVTX");
}

// NVTX's side of the injection: a CORE callback table whose slots the shim fills in.
NvtxFunctionPointer g_core_slots[NVTX_CBID_CORE_SIZE];
NvtxFunctionPointer* g_core_table[NVTX_CBID_CORE_SIZE + 1];

int NVTX_API GetModuleFunctionTable(NvtxCallbackModule module, NvtxFunctionTable* table,
                                    unsigned int* size) {
  if (module != NVTX_CB_MODULE_CORE) return 0;
  for (int id = 1; id < NVTX_CBID_CORE_SIZE; ++id) g_core_table[id] = &g_core_slots[id];
  *table = g_core_table;
  *size = NVTX_CBID_CORE_SIZE;
  return 1;
}

const NvtxExportTableCallbacks kCallbacks = {sizeof(NvtxExportTableCallbacks),
                                             GetModuleFunctionTable};

const void* NVTX_API GetExportTable(uint32_t id) {
  return id == NVTX_ETID_CALLBACKS ? &kCallbacks : nullptr;
}

TEST(InstallNvtxRanges, PushesAndPopsScopes) {
  ASSERT_EQ(protond::shim::InstallNvtxRanges(GetExportTable), 1);
  auto push_a =
      reinterpret_cast<nvtxRangePushA_impl_fntype>(g_core_slots[NVTX_CBID_CORE_RangePushA]);
  auto push_w =
      reinterpret_cast<nvtxRangePushW_impl_fntype>(g_core_slots[NVTX_CBID_CORE_RangePushW]);
  auto push_ex =
      reinterpret_cast<nvtxRangePushEx_impl_fntype>(g_core_slots[NVTX_CBID_CORE_RangePushEx]);
  auto pop = reinterpret_cast<nvtxRangePop_impl_fntype>(g_core_slots[NVTX_CBID_CORE_RangePop]);
  ASSERT_NE(push_a, nullptr);
  ASSERT_NE(push_w, nullptr);
  ASSERT_NE(push_ex, nullptr);
  ASSERT_NE(pop, nullptr);
  EXPECT_EQ(g_core_slots[NVTX_CBID_CORE_MarkA], nullptr);  // marks are not scopes

  nvtxEventAttributes_t attributes = {};
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "inner";
  EXPECT_EQ(push_a("outer"), 0);
  EXPECT_EQ(push_ex(&attributes), 1);
  EXPECT_EQ(push_w(L""), 2);
  EXPECT_EQ(pop(), 2);
  EXPECT_EQ(pop(), 1);
  EXPECT_EQ(pop(), 0);
  g_stack.push_back("not an NVTX range");
  EXPECT_EQ(pop(), -1);  // no NVTX range is open: the other scope stays
  EXPECT_THAT(g_calls,
              ElementsAre("enter outer", "enter inner", std::string("enter ") + kUnnamedNvtxRange,
                          "exit", "exit", "exit"));
  EXPECT_THAT(g_stack, ElementsAre("not an NVTX range"));
}

}  // namespace
}  // namespace protond::shim
