#include "view/jobs/nccl_kernel_name.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

namespace protond::view {
namespace {

constexpr std::string_view kDevPrefix = "ncclDevKernel_";  // NCCL 2.19 on
constexpr std::string_view kOldPrefix = "ncclKernel_";     // before

// NCCL's generate.py spells collectives, algorithms and protocols so; AllToAll, Gather and Scatter
// run as SendRecv kernels today, and are accepted should a version name them.
constexpr std::array<std::string_view, 8> kCollectives = {"AllReduce", "AllGather", "ReduceScatter",
                                                          "Broadcast", "Reduce",    "AllToAll",
                                                          "Gather",    "Scatter"};
// Longest first, so that "NVLS_TREE" is not read as "NVLS".
constexpr std::array<std::string_view, 7> kAlgorithms = {
    "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "TREE", "RING", "PAT"};
constexpr std::array<std::string_view, 3> kProtocols = {"LL128", "LL", "SIMPLE"};
// Before 2.19 the datatype was the C type's name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kOldDatatypes = {{
    {"int8_t", "i8"},
    {"uint8_t", "u8"},
    {"int32_t", "i32"},
    {"uint32_t", "u32"},
    {"int64_t", "i64"},
    {"uint64_t", "u64"},
    {"half", "f16"},
    {"float", "f32"},
    {"double", "f64"},
    {"__nv_bfloat16", "bf16"},
    {"bfloat16", "bf16"},
}};

// The kernel's own identifier: "_Z39ncclDevKernel_...24ncclDevKernelArgsStorage..." gives the 39
// characters after the length; "void ncclKernel_...(ncclWorkElem)" the text before "(".
std::string_view Identifier(std::string_view name) {
  if (name.starts_with("_Z")) {
    size_t digits = 2;
    size_t length = 0;
    while (digits < name.size() && digits < 8 && name[digits] >= '0' && name[digits] <= '9') {
      length = length * 10 + static_cast<size_t>(name[digits] - '0');
      ++digits;
    }
    if (digits == 2 || length > name.size() - digits) return {};
    return name.substr(digits, length);
  }
  if (name.starts_with("void ")) name.remove_prefix(5);
  return name.substr(0, name.find_first_of("(<"));
}

// Removes `prefix` and the "_" after it from `text` when both are there.
bool ConsumeToken(std::string_view& text, std::string_view token) {
  if (!text.starts_with(token)) return false;
  if (text.size() == token.size()) {
    text = {};
    return true;
  }
  if (text[token.size()] != '_') return false;
  text.remove_prefix(token.size() + 1);
  return true;
}

template <size_t N>
std::string ConsumeOneOf(std::string_view& text, const std::array<std::string_view, N>& tokens) {
  for (std::string_view token : tokens) {
    if (ConsumeToken(text, token)) return std::string(token);
  }
  return "";
}

std::string ConsumeWord(std::string_view& text) {
  const size_t end = text.find('_');
  std::string word(text.substr(0, end));
  text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  return word;
}

std::string NewDatatype(std::string_view old) {
  for (const auto& [c_name, short_name] : kOldDatatypes) {
    if (old == c_name) return std::string(short_name);
  }
  return std::string(old);
}

// "AllReduce_Sum_f32_RING_LL", "AllGather_RING_LL": the reduction and datatype, where present,
// come between the collective and the algorithm.
void ParseNewTail(std::string_view rest, NcclKernel& kernel) {
  size_t at = 0;
  while (true) {
    std::string_view tail = rest.substr(at);
    std::string_view probe = tail;
    const std::string algorithm = ConsumeOneOf(probe, kAlgorithms);
    const std::string protocol = ConsumeOneOf(probe, kProtocols);
    if (!algorithm.empty() && !protocol.empty() && probe.empty()) {
      kernel.algorithm = algorithm;
      kernel.protocol = protocol;
      std::string_view middle = rest.substr(0, at == 0 ? 0 : at - 1);
      kernel.reduction = ConsumeWord(middle);
      kernel.datatype = std::string(middle);
      return;
    }
    const size_t next = rest.find('_', at);
    if (next == std::string_view::npos) return;
    at = next + 1;
  }
}

// "AllReduce_RING_LL_Sum_float": the algorithm and protocol first.
void ParseOldTail(std::string_view rest, NcclKernel& kernel) {
  kernel.algorithm = ConsumeOneOf(rest, kAlgorithms);
  kernel.protocol = ConsumeOneOf(rest, kProtocols);
  if (kernel.algorithm.empty() || kernel.protocol.empty()) return;
  kernel.reduction = ConsumeWord(rest);
  kernel.datatype = NewDatatype(rest);
}

}  // namespace

std::optional<NcclKernel> ParseNcclKernelName(std::string_view name) {
  std::string_view rest = Identifier(name);
  const bool dev = rest.starts_with(kDevPrefix);
  if (!dev && !rest.starts_with(kOldPrefix)) return std::nullopt;
  rest.remove_prefix(dev ? kDevPrefix.size() : kOldPrefix.size());
  NcclKernel kernel;
  if (ConsumeToken(rest, "SendRecv")) {
    kernel.kind = NcclKernel::Kind::kPointToPoint;
    kernel.op = "SendRecv";
    return kernel;
  }
  kernel.op = ConsumeOneOf(rest, kCollectives);
  if (kernel.op.empty()) {
    kernel.kind = NcclKernel::Kind::kGeneric;  // ncclDevKernel_Generic, or a name unknown to us
    return kernel;
  }
  if (dev) {
    ParseNewTail(rest, kernel);
  } else {
    ParseOldTail(rest, kernel);
  }
  return kernel;
}

}  // namespace protond::view
