#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/testing/small_stack.h"
#include "common/tree/tree_depth.h"
#include "gtest/gtest.h"
#include "view/hatchet/hatchet_writer.h"
#include "view/testing/test_trees.h"

namespace protond::view {
namespace {

using Json = nlohmann::json;
using testing::AddDouble;
using testing::AddInt;
using testing::AddNode;

v1::Tree ModelTree() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddInt(AddNode(&tree, 1, 0, "model", 1), "flops", v1::Metric::INCLUSIVE, 100);
  v1::TreeNode* kernel = AddNode(&tree, 2, 1, "add_one", 3);
  AddInt(kernel, "time (ns)", v1::Metric::INCLUSIVE, 134729568);
  AddInt(kernel, "device_id", v1::Metric::PROPERTY, 0);
  AddInt(kernel, "offset", v1::Metric::INCLUSIVE, -40000);
  v1::TreeNode* cpu = AddNode(&tree, 3, 0, "cpu", 2);
  AddInt(cpu, "cpu_time (ns)", v1::Metric::EXCLUSIVE, 50);
  AddDouble(cpu, "loss", 2.25);
  AddNode(&tree, 4, 0, std::string(300, 'k'), 1);  // a name past str 8
  v1::Device* device = tree.add_devices();
  device->set_device_id(0);
  device->set_arch(90);
  device->set_num_sms(132);
  device->set_clock_rate_khz(1980000);
  device->set_memory_clock_rate_khz(2619000);
  device->set_bus_width_bits(5120);
  return tree;
}

// Read back by an independent decoder (nlohmann's), the MessagePack file holds what the JSON file
// holds, value for value and type for type (an integer stays an integer, a double a double).
TEST(RenderHatchetMsgPack, HoldsTheSameContentAsTheHatchetJson) {
  const v1::Tree tree = ModelTree();
  const std::string bytes = RenderHatchetMsgPack(tree);
  const Json decoded = Json::from_msgpack(bytes);
  const Json json = Json::parse(RenderHatchet(tree));
  EXPECT_EQ(decoded, json);
  const Json& add_one = decoded[0]["children"][0]["children"][0]["metrics"];
  EXPECT_TRUE(add_one["time (ns)"].is_number_integer());
  EXPECT_EQ(add_one["offset"].get<int64_t>(), -40000);
  EXPECT_EQ(add_one["device_id"], "0");
  EXPECT_TRUE(decoded[0]["children"][1]["metrics"]["loss"].is_number_float());
  EXPECT_EQ(decoded[1]["CUDA"]["0"]["num_sms"], 132);
}

// Bytes from hex digits ("92 83").
std::string FromHex(std::string_view hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 3) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return bytes;
}

// A string of up to 31 bytes as MessagePack's fixstr: 0xa0 | length, then the bytes.
std::string FixStr(std::string_view text) {
  return static_cast<char>(0xa0 | text.size()) + std::string(text);
}

// {"name": name, "type": "function"}
std::string FrameBytes(std::string_view name) {
  return FromHex("82") + FixStr("name") + FixStr(name) + FixStr("type") + FixStr("function");
}

// Byte for byte, as Proton's writer lays a node out: a map of "frame", "metrics", "children".
TEST(RenderHatchetMsgPack, WritesAnEmptyTreeAsRootAlone) {
  const std::string expected = FromHex("92 83") + FixStr("frame") + FrameBytes("ROOT") +
                               FixStr("metrics") + FromHex("80") + FixStr("children") +
                               FromHex("90") + FromHex("80");  // device_info: {}
  EXPECT_EQ(RenderHatchetMsgPack(v1::Tree()), expected);
}

TEST(RenderHatchetMsgPack, WritesAChildAndRootsPlaceholders) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddInt(AddNode(&tree, 1, 0, "s", 1), "n", v1::Metric::INCLUSIVE, 200);
  const std::string expected =
      FromHex("92 83") + FixStr("frame") + FrameBytes("ROOT") + FixStr("metrics") + FromHex("81") +
      FixStr("n") + FromHex("00") + FixStr("children") + FromHex("91") + FromHex("83") +
      FixStr("frame") + FrameBytes("s") + FixStr("metrics") + FromHex("81") + FixStr("n") +
      FromHex("cc c8") + FixStr("children") + FromHex("90") + FromHex("80");
  EXPECT_EQ(RenderHatchetMsgPack(tree), expected);
}

TEST(RenderHatchetMsgPack, ATreeAsDeepAsTheLimitIsWrittenWithoutRecursion) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  for (int i = 1; i <= kMaxTreeDepth; ++i) AddNode(&tree, i, i - 1, "s");
  std::string bytes;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { bytes = RenderHatchetMsgPack(tree); }));
  // Each node: map header, "frame" and its map, "metrics" {}, "children" and a one-element
  // array (none for the last).
  const size_t root = 1 + 6 + 1 + 5 + 5 + 5 + 9 + 8 + 1 + 9 + 1;
  const size_t scope = root - 3;  // "s", not "ROOT"
  EXPECT_EQ(bytes.size(), 1 + root + kMaxTreeDepth * scope + 1);
}

}  // namespace
}  // namespace protond::view
