#include "view/tree/job_tree.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/tree/tree_union.h"

namespace protond::view {
namespace {

enum SpreadColumn { kTotal, kMin, kMedian, kMax, kSlowest, kRanks, kColumns };

MetricColumn Labelled(const MetricColumn& metric, const std::string& header) {
  MetricColumn column = metric;
  column.header = header;
  return column;
}

// The values of one frame over the ranks that have it, with each one's rank number.
struct FrameValues {
  std::vector<std::pair<MetricValue, int64_t>> by_rank;
};

// The mean of two values: an integer when both are and it is whole.
MetricValue MeanOf(const MetricValue& a, const MetricValue& b) {
  if (a.kind == MetricValue::Kind::kInt && b.kind == MetricValue::Kind::kInt &&
      (a.i + b.i) % 2 == 0) {
    return MetricValue::Int((a.i + b.i) / 2);
  }
  return MetricValue::Double((a.AsDouble() + b.AsDouble()) / 2);
}

int64_t RankNumber(const std::vector<RankTree>& ranks, size_t position) {
  int64_t number = 0;
  return absl::SimpleAtoi(ranks[position].rank, &number) ? number : static_cast<int64_t>(position);
}

void Summarize(FrameValues& frame, int node, std::vector<std::vector<MetricValue>>& out) {
  if (frame.by_rank.empty()) return;
  auto& values = frame.by_rank;
  std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
    return a.first.AsDouble() < b.first.AsDouble();
  });
  for (const auto& [value, rank] : values) out[kTotal][node].Add(value);
  out[kMin][node] = values.front().first;
  const size_t middle = values.size() / 2;
  out[kMedian][node] = values.size() % 2 == 1
                           ? values[middle].first
                           : MeanOf(values[middle - 1].first, values[middle].first);
  // The first of the largest, in the ranks' order: the sort was stable.
  const double max = values.back().first.AsDouble();
  const auto slowest = std::find_if(values.begin(), values.end(),
                                    [max](const auto& v) { return v.first.AsDouble() == max; });
  out[kMax][node] = slowest->first;
  out[kSlowest][node] = MetricValue::Int(slowest->second);
  out[kRanks][node] = MetricValue::Int(static_cast<int64_t>(values.size()));
}

}  // namespace

std::vector<MetricColumn> SpreadColumns(const MetricColumn& metric) {
  MetricColumn plain = metric;
  plain.percent = false;
  return {Labelled(metric, absl::StrCat(metric.header, " total")),
          Labelled(metric, "min"),
          Labelled(metric, "median"),
          Labelled(metric, "max"),
          Labelled(plain, "slowest rank"),
          Labelled(plain, "ranks")};
}

absl::StatusOr<TreeValues> SpreadOverRanks(const std::vector<RankTree>& ranks) {
  if (ranks.empty()) return absl::InvalidArgumentError("a job view needs at least one rank");
  TreeUnion builder;
  std::vector<std::vector<int>> index;
  for (const RankTree& rank : ranks) {
    if (rank.values.values.size() != 1) {
      return absl::InvalidArgumentError("each rank's tree needs exactly one metric column");
    }
    index.push_back(builder.Add(rank.values.tree, rank.values.shape));
  }
  TreeValues spread;
  spread.tree = std::move(builder.tree());
  ASSIGN_OR_RETURN(spread.shape, CheckTreeShape(spread.tree));
  const int size = spread.tree.nodes_size();
  std::vector<FrameValues> frames(size);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<MetricValue>& column = ranks[r].values.values[0];
    for (size_t i = 0; i < column.size(); ++i) {
      if (!column[i].blank())
        frames[index[r][i]].by_rank.push_back({column[i], RankNumber(ranks, r)});
    }
  }
  spread.values.assign(kColumns, std::vector<MetricValue>(size));
  for (int node = 0; node < size; ++node) Summarize(frames[node], node, spread.values);
  return spread;
}

}  // namespace protond::view
