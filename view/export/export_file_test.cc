#include "view/export/export_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/test_export_profiles.h"
#include "view/testing/test_files.h"
#include "view/testing/test_pprof.h"

namespace protond::view {
namespace {

using ::testing::Contains;

std::string Render(ExportFormat format) {
  ExportInput input;
  input.tree = testing::ExportTree();
  input.has_trace = true;
  input.trace = testing::ExportTrace();
  absl::StatusOr<std::string> text = RenderExport({.format = format}, input, "t");
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// The web page names its downloads by format; every format that parses has its extension.
TEST(ExportFileTest, EachFormatHasItsExtension) {
  const std::pair<const char*, const char*> formats[] = {
      {"hatchet", "hatchet"}, {"hatchet_msgpack", "hatchet_msgpack"},
      {"chrome", "json"},     {"folded", "folded"},
      {"svg", "svg"},         {"csv", "csv"},
      {"pprof", "pb.gz"}};
  for (const auto& [name, extension] : formats) {
    absl::StatusOr<ExportFormat> format = ParseExportFormat(name);
    ASSERT_TRUE(format.ok()) << format.status();
    EXPECT_EQ(ExportExtension(*format), extension);
  }
  EXPECT_EQ(ParseExportFormat("png").status().message(),
            "'png' is not a format: hatchet, hatchet_msgpack, chrome, folded, svg, csv or pprof");
}

TEST(ExportFileTest, EachFormatReadsWhatItRenders) {
  EXPECT_FALSE(ExportReadsOf(ExportFormat::kChrome, true).tree);
  EXPECT_TRUE(ExportReadsOf(ExportFormat::kChrome, false).trace);  // refused by the reader
  EXPECT_TRUE(ExportReadsOf(ExportFormat::kCsv, true).trace);      // launch-time distribution
  EXPECT_FALSE(ExportReadsOf(ExportFormat::kCsv, false).trace);
  EXPECT_TRUE(ExportReadsOf(ExportFormat::kPprof, false).session);
  for (ExportFormat format : {ExportFormat::kHatchet, ExportFormat::kHatchetMsgPack,
                              ExportFormat::kFolded, ExportFormat::kSvg}) {
    const ExportReads reads = ExportReadsOf(format, true);
    EXPECT_TRUE(reads.tree);
    EXPECT_FALSE(reads.trace);
    EXPECT_FALSE(reads.session);
  }
}

TEST(ExportFileTest, EachFormatMatchesItsGoldenFile) {
  testing::ExpectGolden(Render(ExportFormat::kHatchet), "export_tree.hatchet");
  testing::ExpectGolden(Render(ExportFormat::kChrome), "export_trace.chrome_trace");
  testing::ExpectGolden(Render(ExportFormat::kFolded), "export_tree.folded");
  testing::ExpectGolden(Render(ExportFormat::kSvg), "export_tree.svg");
  testing::ExpectGolden(Render(ExportFormat::kCsv), "export_trace.csv");
}

// The pprof profile is gzipped (its bytes depend on zlib's version): read back, not golden.
TEST(ExportFileTest, APprofProfileCarriesTheSessionsNameAndTimes) {
  ExportInput input;
  input.tree = testing::ExportTree();
  input.has_session = true;
  input.session.set_id(7);
  input.session.set_name("train");
  input.session.set_start_time_unix_ns(1'700'000'000'000'000'000);
  input.session.set_end_time_unix_ns(1'700'000'001'000'000'000);
  absl::StatusOr<std::string> file = RenderExport({.format = ExportFormat::kPprof}, input, "7");
  ASSERT_TRUE(file.ok()) << file.status();
  const perftools::profiles::Profile profile = testing::ParsePprof(*file);
  EXPECT_EQ(profile.time_nanos(), 1'700'000'000'000'000'000);
  EXPECT_EQ(profile.duration_nanos(), 1'000'000'000);
  EXPECT_THAT(testing::PprofComments(profile), Contains("protond: session 7 (train)"));
  EXPECT_EQ(profile.sample_size(), 7);  // a sample per node the tree view shows
}

TEST(ExportFileTest, APprofProfileWithoutASessionIsNamedAfterItsProfile) {
  ExportInput input;
  input.tree = testing::ExportTree();
  absl::StatusOr<std::string> file =
      RenderExport({.format = ExportFormat::kPprof}, input, "step.hatchet");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(testing::PprofComments(testing::ParsePprof(*file)),
              Contains("protond: step.hatchet"));
}

}  // namespace
}  // namespace protond::view
