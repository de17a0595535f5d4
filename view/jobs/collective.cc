#include "view/jobs/collective.h"

#include <array>
#include <cctype>
#include <utility>

namespace protond::view {
namespace {

constexpr std::array<std::pair<CollectiveOp, std::string_view>, 10> kOpNames = {{
    {CollectiveOp::kAllReduce, "all_reduce"},
    {CollectiveOp::kAllGather, "all_gather"},
    {CollectiveOp::kReduceScatter, "reduce_scatter"},
    {CollectiveOp::kBroadcast, "broadcast"},
    {CollectiveOp::kReduce, "reduce"},
    {CollectiveOp::kAllToAll, "all_to_all"},
    {CollectiveOp::kGather, "gather"},
    {CollectiveOp::kScatter, "scatter"},
    {CollectiveOp::kSend, "send"},
    {CollectiveOp::kRecv, "recv"},
}};

// "All_Reduce" and "AllReduce" both read "allreduce".
std::string Folded(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace

std::string_view CollectiveOpName(CollectiveOp op) {
  for (const auto& [known, name] : kOpNames) {
    if (known == op) return name;
  }
  return "collective";
}

std::optional<CollectiveOp> ParseCollectiveOp(std::string_view name) {
  // Longer than any name: not worth folding (the plugin's strings are untrusted).
  if (name.empty() || name.size() > 32) return std::nullopt;
  const std::string folded = Folded(name);
  for (const auto& [op, known] : kOpNames) {
    if (Folded(known) == folded) return op;
  }
  return std::nullopt;
}

double BusBandwidthFactor(CollectiveOp op, int nranks) {
  const double n = nranks;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSend:
    case CollectiveOp::kRecv:
      return 1.0;
  }
  return 1.0;
}

double BusBandwidthGbps(CollectiveOp op, int nranks, uint64_t bytes, int64_t time_ns) {
  if (time_ns <= 0) return 0;
  return static_cast<double>(bytes) / static_cast<double>(time_ns) * BusBandwidthFactor(op, nranks);
}

}  // namespace protond::view
