// DescribeProblems, ListProblems and AddProblems (circular_buffer.h): the soft problems of
// decodes as one status line.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/instrumentation/circular_buffer.h"

namespace protond::instrumentation {
namespace {

// "1 scope" / "2 scopes".
std::string Count(uint64_t n, absl::string_view singular, absl::string_view plural) {
  return absl::StrCat(n, " ", n == 1 ? singular : plural);
}

}  // namespace

std::string DescribeProblems(const DecodeProblems& problems) {
  std::string list = ListProblems(problems);
  return list.empty() ? "" : absl::StrCat("instrumentation: ", list);
}

std::string ListProblems(const DecodeProblems& problems) {
  std::vector<std::string> parts;
  if (problems.records_lost > 0) {
    parts.push_back(absl::StrCat(Count(problems.records_lost, "record", "records"),
                                 " lost to wrap-around in ",
                                 Count(problems.warps_with_lost_records, "warp", "warps"),
                                 " (buffer too small: raise buffer_size)"));
  }
  if (problems.starts_without_end > 0) {
    parts.push_back(absl::StrCat(Count(problems.starts_without_end, "scope", "scopes"),
                                 " started without end"));
  }
  if (problems.ends_without_start > 0) {
    parts.push_back(absl::StrCat(Count(problems.ends_without_start, "scope", "scopes"),
                                 " ended without start"));
  }
  if (problems.clock_overflows > 0) {
    parts.push_back(absl::StrCat(
        Count(problems.clock_overflows, "clock overflow", "clock overflows"), " unwrapped"));
  }
  if (problems.unnamed_scope_ids > 0) {
    parts.push_back(absl::StrCat(Count(problems.unnamed_scope_ids, "scope id", "scope ids"),
                                 " without a name"));
  }
  if (problems.unprofiled_blocks > 0) {
    parts.push_back(absl::StrCat(Count(problems.unprofiled_blocks, "block", "blocks"),
                                 " not profiled (preamble 0)"));
  }
  return absl::StrJoin(parts, "; ");
}

void AddProblems(const DecodeProblems& more, DecodeProblems& total) {
  total.unprofiled_blocks += more.unprofiled_blocks;
  total.records_lost += more.records_lost;
  total.warps_with_lost_records += more.warps_with_lost_records;
  total.starts_without_end += more.starts_without_end;
  total.ends_without_start += more.ends_without_start;
  total.clock_overflows += more.clock_overflows;
  total.unnamed_scope_ids = std::max(total.unnamed_scope_ids, more.unnamed_scope_ids);
}

}  // namespace protond::instrumentation
