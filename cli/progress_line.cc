#include "cli/progress_line.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace protond::cli {

void ProgressLine::Step(const std::string& step) {
  if (out_ == nullptr) return;
  EndPercentLine();
  absl::FPrintF(out_, "%s: %s\n", command_, step);
  std::fflush(out_);
}

void ProgressLine::Fraction(const std::string& step, uint64_t done, uint64_t total,
                            const std::string& unit) {
  if (out_ == nullptr) return;
  const uint64_t capped = std::min(done, total);
  const int percent = total == 0 ? 100 : static_cast<int>(capped * 100 / total);
  if (percent == shown_percent_) return;
  // \r and clear-to-end: the new text may be shorter than what it replaces.
  absl::FPrintF(out_, "\r%s: %s: %d%% (%d of %d %s)\x1b[K", command_, step, percent, capped, total,
                unit);
  std::fflush(out_);
  shown_percent_ = percent;
}

void ProgressLine::EndPercentLine() {
  if (out_ == nullptr || shown_percent_ < 0) return;
  std::fputc('\n', out_);
  std::fflush(out_);
  shown_percent_ = -1;
}

}  // namespace protond::cli
