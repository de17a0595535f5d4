#include "view/jobs/collective_table.h"

#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "view/jobs/collective_summary.h"
#include "view/jobs/time_text.h"
#include "view/render/text_table.h"

namespace protond::view {
namespace {

constexpr std::array<TableColumn, 8> kColumns = {{
    {"COLLECTIVE", false},
    {"CALLS", true},
    {"JUDGED", true},
    {"RANK TIME", true},
    {"TRANSFER", true},
    {"WAIT", true},
    {"ALGORITHM", false},
    {"PROTOCOL", false},
}};

constexpr std::array<TableColumn, 10> kColumnsWithBytes = {{
    {"COLLECTIVE", false},
    {"CALLS", true},
    {"JUDGED", true},
    {"BYTES", true},
    {"RANK TIME", true},
    {"TRANSFER", true},
    {"WAIT", true},
    {"BUS BW", true},
    {"ALGORITHM", false},
    {"PROTOCOL", false},
}};

// `value` to three significant figures from 1 to 999.
std::string ThreeFigures(double value) {
  if (value >= 100) return absl::StrFormat("%.0f", value);
  return value >= 10 ? absl::StrFormat("%.1f", value) : absl::StrFormat("%.2f", value);
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < kUnits.size()) {
    value /= 1000;
    ++unit;
  }
  return unit == 0 ? absl::StrCat(bytes, " B")
                   : absl::StrCat(ThreeFigures(value), " ", kUnits[unit]);
}

std::string RenderCollectiveTable(const MatchedJob& matched, bool with_bytes, size_t limit) {
  std::vector<std::vector<std::string>> rows;
  for (const CollectiveSummary& summary : SummarizeCollectives(matched)) {
    if (limit > 0 && rows.size() == limit) break;
    std::vector<std::string> row = {std::string(CollectiveOpName(summary.op)),
                                    absl::StrCat(summary.calls),
                                    absl::StrCat(summary.judged_calls),
                                    FormatTimeNs(static_cast<double>(summary.rank_time_ns)),
                                    FormatTimeNs(static_cast<double>(summary.transfer_ns)),
                                    FormatTimeNs(static_cast<double>(summary.wait_ns)),
                                    summary.algorithm.empty() ? "-" : summary.algorithm,
                                    summary.protocol.empty() ? "-" : summary.protocol};
    if (with_bytes) {
      row.insert(row.begin() + 3, FormatBytes(summary.bytes));
      row.insert(row.begin() + 7,
                 summary.median_bus_bw_gbps > 0
                     ? absl::StrCat(ThreeFigures(summary.median_bus_bw_gbps), " GB/s")
                     : "-");
    }
    rows.push_back(std::move(row));
  }
  return with_bytes ? RenderTextTable(kColumnsWithBytes, rows) : RenderTextTable(kColumns, rows);
}

}  // namespace protond::view
