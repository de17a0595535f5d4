#include "cli/progress_line.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace protond::cli {
namespace {

// Everything a ProgressLine wrote into memory, once it is gone.
class WrittenText {
 public:
  WrittenText() : file_(open_memstream(&buffer_, &size_)) {}
  ~WrittenText() { std::free(buffer_); }
  FILE* file() { return file_; }
  std::string Close() {
    std::fclose(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

TEST(ProgressLineTest, StepsAreLinesAndAFractionRedrawsOnlyWhenItsPercentChanges) {
  WrittenText text;
  {
    ProgressLine progress(text.file(), "protonctl export");
    progress.Step("reading the tree of 3");
    progress.Fraction("reading the events of session 3", 0, 2000, "events");
    progress.Fraction("reading the events of session 3", 19, 2000, "events");  // still 0%
    progress.Fraction("reading the events of session 3", 1000, 2000, "events");
    progress.Fraction("reading the events of session 3", 2000, 2000, "events");
    progress.Step("rendering");
  }
  EXPECT_EQ(text.Close(),
            "protonctl export: reading the tree of 3\n"
            "\rprotonctl export: reading the events of session 3: 0% (0 of 2000 events)\x1b[K"
            "\rprotonctl export: reading the events of session 3: 50% (1000 of 2000 events)\x1b[K"
            "\rprotonctl export: reading the events of session 3: 100% (2000 of 2000 events)\x1b[K"
            "\nprotonctl export: rendering\n");
}

TEST(ProgressLineTest, AnOpenPercentageLineEndsWithTheObjectAndNothingIsOverCounted) {
  WrittenText text;
  {
    ProgressLine progress(text.file(), "protonctl export");
    progress.Fraction("reading", 5, 3, "events");  // more than announced: shown as all
    progress.Fraction("reading", 0, 0, "events");  // nothing to read is done, and already shown
  }
  EXPECT_EQ(text.Close(), "\rprotonctl export: reading: 100% (3 of 3 events)\x1b[K\n");
}

TEST(ProgressLineTest, WritesNothingWithoutAFile) {
  ProgressLine progress(nullptr, "protonctl export");
  progress.Step("rendering");
  progress.Fraction("reading", 1, 2, "events");
}

}  // namespace
}  // namespace protond::cli
