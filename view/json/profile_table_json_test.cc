#include "view/json/profile_table_json.h"

#include <string>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddKernel;

constexpr char kMatmulFloat[] = "_Z6matmulIfEvPT_";  // void matmul<float>(float*)

// ROOT, a scope with a hostile name, and a templated kernel under it.
v1::Tree Profile() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "<img src=x onerror=alert(1)>");
  testing::AddInt(AddKernel(&tree, 2, 1, kMatmulFloat, 3, 3'000'000), "flops16",
                  v1::Metric::INCLUSIVE, 7);
  AddKernel(&tree, 3, 0, "reduce", 1, 500'000);
  tree.add_notes("one lane was lost");
  return tree;
}

ViewOptions Metrics(const std::string& metrics) {
  ViewOptions options;
  options.metrics = metrics;
  return options;
}

nlohmann::json TableJson(const v1::Tree& tree, const ViewOptions& options,
                         const v1::Tree* base = nullptr) {
  absl::StatusOr<ProfileTable> table = BuildProfileTable(tree, options, base);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? ProfileTableJson(*table) : nlohmann::json();
}

TEST(ProfileTableJsonTest, EveryFrameWithItsParentNamesValuesAndCells) {
  const nlohmann::json expected = nlohmann::json::parse(R"json({
    "columns": ["time (ms)", "count", "flops16"],
    "nodes": [
      {"id": 0, "parent": null, "name": "ROOT", "full_name": "ROOT",
       "values": [3.5, 1, 7], "text": ["3.500", "1", "7"]},
      {"id": 1, "parent": 0, "name": "<img src=x onerror=alert(1)>",
       "full_name": "<img src=x onerror=alert(1)>", "values": [3.0, 0, 7],
       "text": ["3.000", "0", "7"]},
      {"id": 2, "parent": 1, "name": "matmul<...>", "full_name": "void matmul<float>(float*)",
       "values": [3.0, 3, 7], "text": ["3.000", "3", "7"]},
      {"id": 3, "parent": 0, "name": "reduce", "full_name": "reduce",
       "values": [0.5, 1, null], "text": ["0.500", "1", ""]}
    ],
    "notes": ["one lane was lost"]})json");
  EXPECT_EQ(TableJson(Profile(), Metrics("time/ms,count,flops16")), expected);
}

TEST(ProfileTableJsonTest, AVectorMetricIsItsSumAndItsElementsAsText) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddIntVector(testing::AddNode(&tree, 1, 0, "s"), "v", {2, 4, 6});
  const nlohmann::json table = TableJson(tree, Metrics("v"));
  ASSERT_EQ(table["nodes"].size(), 2u);
  EXPECT_EQ(table["nodes"][1]["values"], nlohmann::json::parse("[12.0]"));
  EXPECT_EQ(table["nodes"][1]["text"], nlohmann::json::parse(R"(["[2, 4, 6]"])"));
}

// --full-names: the printed name is the full one too.
TEST(ProfileTableJsonTest, FullNamesArePrinted) {
  ViewOptions options = Metrics("time/ms");
  options.kernel_names = KernelNames::kFull;
  const nlohmann::json json = TableJson(Profile(), options);
  EXPECT_EQ(json["nodes"][2]["name"], "void matmul<float>(float*)");
}

// A diff: the frames of both, each value the profile's minus the base's.
TEST(ProfileTableJsonTest, DiffSubtractsTheBase) {
  v1::Tree base = Profile();
  base.mutable_nodes(2)->mutable_metrics(0)->set_int_value(1'000'000);
  const nlohmann::json json = TableJson(Profile(), Metrics("time/ms"), &base);
  EXPECT_EQ(json["nodes"][2]["values"], nlohmann::json::array({2.0}));
  EXPECT_EQ(json["nodes"][2]["text"], nlohmann::json::array({"2.000"}));
  EXPECT_EQ(json["nodes"][3]["text"], nlohmann::json::array({"0.000"}));
}

// The cells are the text view's, by construction: every cell of RenderProfile's lines is in the
// JSON's text, line by line.
TEST(ProfileTableJsonTest, CellsAreTheTextViewsCells) {
  const ViewOptions options = Metrics("time/ms,count,flops16");
  const absl::StatusOr<std::string> text = RenderProfile(Profile(), options);
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json json = TableJson(Profile(), options);
  // Pre-order happens to be the message order here.
  EXPECT_EQ(*text,
            "time (ms)  count  flops16\n"
            "    3.500      1        7  ROOT\n"
            "    3.000      0        7  ├─ <img src=x onerror=alert(1)>\n"
            "    3.000      3        7  │  └─ matmul<...>\n"
            "    0.500      1           └─ reduce\n"
            "note: one lane was lost\n");
  EXPECT_EQ(json["nodes"][3]["text"], nlohmann::json::array({"0.500", "1", ""}));
}

// Bytes that are not UTF-8 become U+FFFD; markup stays as text, escaped only as JSON must.
TEST(ProfileTableJsonTest, DumpReplacesBadUtf8AndKeepsMarkupAsText) {
  EXPECT_EQ(DumpJson(nlohmann::json{{"name", std::string("a\xff<b>\"")}}),
            "{\"name\":\"a\xEF\xBF\xBD<b>\\\"\"}");
}

}  // namespace
}  // namespace protond::view
