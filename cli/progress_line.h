// What protonctl tells a person watching a long command: one line per step, and for a step whose
// size is known, its percentage redrawn in place on that line. Writes nothing when `out` is null,
// which is how protonctl keeps a script's stderr clean (it passes stderr only on a terminal).
#ifndef PROTOND_CLI_PROGRESS_LINE_H_
#define PROTOND_CLI_PROGRESS_LINE_H_

#include <cstdint>
#include <cstdio>
#include <string>

namespace protond::cli {

class ProgressLine {
 public:
  // `command` starts each line: "protonctl export".
  ProgressLine(FILE* out, std::string command) : out_(out), command_(std::move(command)) {}
  ~ProgressLine() { EndPercentLine(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // "protonctl export: STEP", on a line of its own.
  void Step(const std::string& step);
  // "protonctl export: STEP: 42% (420 of 1000 UNIT)", redrawn whenever the whole percentage
  // changes; the line ends at the next Step or when this object goes. `total` 0 counts as done.
  void Fraction(const std::string& step, uint64_t done, uint64_t total, const std::string& unit);

 private:
  void EndPercentLine();

  FILE* out_;
  std::string command_;
  int shown_percent_ = -1;  // on the open percentage line; -1: no such line
};

}  // namespace protond::cli

#endif  // PROTOND_CLI_PROGRESS_LINE_H_
