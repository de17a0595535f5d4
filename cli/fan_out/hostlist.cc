#include "cli/fan_out/hostlist.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

absl::Status Bad(absl::string_view hostlist, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--hosts '", hostlist, "': ", why));
}

// The items of a list, split at commas outside brackets.
absl::StatusOr<std::vector<std::string>> SplitItems(absl::string_view hostlist) {
  std::vector<std::string> items(1);
  int open = 0;
  for (const char c : hostlist) {
    if (c == '[') ++open;
    if (c == ']' && --open < 0) return Bad(hostlist, "a ']' without its '['");
    if (c == '[' && open > 1) return Bad(hostlist, "brackets inside brackets");
    if (c == ',' && open == 0) {
      items.emplace_back();
    } else {
      items.back().push_back(c);
    }
  }
  if (open != 0) return Bad(hostlist, "a '[' without its ']'");
  for (const std::string& item : items) {
    if (item.empty()) return Bad(hostlist, "an empty host name");
  }
  return items;
}

// "01-04,07" as its numbers, padded as written.
absl::StatusOr<std::vector<std::string>> ExpandRanges(absl::string_view hostlist,
                                                      absl::string_view ranges) {
  std::vector<std::string> out;
  for (absl::string_view range : absl::StrSplit(ranges, ',')) {
    const std::vector<absl::string_view> bounds = absl::StrSplit(range, absl::MaxSplits('-', 1));
    uint64_t first = 0;
    uint64_t last = 0;
    if (!absl::SimpleAtoi(bounds[0], &first) ||
        !absl::SimpleAtoi(bounds.size() == 2 ? bounds[1] : bounds[0], &last) || last < first) {
      return Bad(hostlist, absl::StrCat("'[", ranges, "]' is not a list of numbers and ranges ",
                                        "such as [01-04,07]"));
    }
    if (last - first >= kMaxHosts) return Bad(hostlist, "more hosts than protonctl takes");
    const int width = static_cast<int>(bounds[0].size());
    for (uint64_t n = first; n <= last; ++n) out.push_back(absl::StrFormat("%0*d", width, n));
  }
  return out;
}

// One item, each bracket group expanded in turn (the first group varies slowest).
absl::Status ExpandItem(absl::string_view hostlist, absl::string_view item,
                        std::vector<std::string>& hosts) {
  const size_t open = item.find('[');
  if (open == absl::string_view::npos) {
    if (item.find(']') != absl::string_view::npos) return Bad(hostlist, "a ']' without its '['");
    hosts.emplace_back(item);
    return absl::OkStatus();
  }
  const size_t close = item.find(']', open);
  ASSIGN_OR_RETURN(const std::vector<std::string> numbers,
                   ExpandRanges(hostlist, item.substr(open + 1, close - open - 1)));
  for (const std::string& number : numbers) {
    const std::string expanded = absl::StrCat(item.substr(0, open), number, item.substr(close + 1));
    RETURN_IF_ERROR(ExpandItem(hostlist, expanded, hosts));
    if (hosts.size() > kMaxHosts) return Bad(hostlist, "more hosts than protonctl takes");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view hostlist) {
  ASSIGN_OR_RETURN(const std::vector<std::string> items, SplitItems(hostlist));
  std::vector<std::string> hosts;
  for (const std::string& item : items) RETURN_IF_ERROR(ExpandItem(hostlist, item, hosts));
  std::vector<std::string> unique;
  for (std::string& host : hosts) {
    if (std::find(unique.begin(), unique.end(), host) == unique.end()) {
      unique.push_back(std::move(host));
    }
  }
  return unique;
}

}  // namespace protond::cli
