// ParseHatchetMsgPack and ParseHatchetProfile (hatchet_reader.h): newer Proton's
// `.hatchet_msgpack` files give the tree their JSON form gives, and hostile bytes an error that
// names the byte offset, never a crash.
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>

#include "common/testing/small_stack.h"
#include "common/tree/tree_depth.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/hatchet/hatchet_reader.h"
#include "view/hatchet/hatchet_writer.h"
#include "view/testing/test_trees.h"

namespace protond::view {
namespace {

using testing::AddDouble;
using testing::AddDoubleVector;
using testing::AddInt;
using testing::AddIntVector;
using testing::AddNode;
using ::testing::StartsWith;

constexpr char kFixture[] = HATCHET_TESTDATA_DIR "/h100_proton.hatchet";

std::string Error(std::string_view msgpack) {
  return ParseHatchetMsgPack(msgpack).status().ToString();
}

// MessagePack spelled out byte by byte, independently of protond's writer.
std::string Bytes(std::initializer_list<int> bytes) {
  std::string text;
  for (int byte : bytes) text.push_back(static_cast<char>(byte));
  return text;
}
std::string Array(int size) { return Bytes({0x90 | size}); }  // fixarray: up to 15 items
std::string Map(int size) { return Bytes({0x80 | size}); }    // fixmap: up to 15 entries
std::string Str(std::string_view text) {                      // fixstr: up to 31 bytes
  return Bytes({0xa0 | static_cast<int>(text.size())}) + std::string(text);
}
std::string Frame(std::string_view name) {
  return Map(2) + Str("name") + Str(name) + Str("type") + Str("function");
}

v1::Tree MetricsTree() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  v1::TreeNode* scope = AddNode(&tree, 1, 0, "model", 1);
  AddInt(scope, "flops", v1::Metric::INCLUSIVE, 100);
  AddInt(scope, "offset", v1::Metric::INCLUSIVE, -40000);
  AddDouble(scope, "loss", 2.25);
  AddIntVector(scope, "tokens", {1, -2, 300000});
  AddDoubleVector(scope, "weights", {0.5, -1.25});
  v1::TreeNode* kernel = AddNode(&tree, 2, 1, "add_one", 3);
  AddInt(kernel, "time (ns)", v1::Metric::INCLUSIVE, 134729568);
  AddInt(kernel, "device_id", v1::Metric::PROPERTY, 0);
  AddNode(&tree, 3, 0, std::string(300, 'k'), 1);  // a name past str 8
  v1::Device* device = tree.add_devices();
  device->set_arch(90);
  device->set_num_sms(132);
  device->set_bus_width_bits(5120);
  return tree;
}

// ROOT and `levels` scopes below it, each inside the one before.
v1::Tree Chain(int levels) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  for (int i = 1; i <= levels; ++i) AddNode(&tree, i, i - 1, "f", 1);
  return tree;
}

// The round trip the issue asks for: protond's MessagePack writer, then this reader, gives the
// tree that the JSON writer, then the JSON reader, gives.
TEST(HatchetMsgPackReaderTest, ReadsTheWritersBytesAsTheJsonReaderReadsItsText) {
  absl::StatusOr<v1::Tree> fixture = ReadHatchetFile(kFixture);
  ASSERT_TRUE(fixture.ok()) << fixture.status();
  for (const v1::Tree& tree : {*fixture, MetricsTree(), Chain(3)}) {
    absl::StatusOr<v1::Tree> from_json = ParseHatchet(RenderHatchet(tree));
    absl::StatusOr<v1::Tree> from_msgpack = ParseHatchetMsgPack(RenderHatchetMsgPack(tree));
    ASSERT_TRUE(from_json.ok()) << from_json.status();
    ASSERT_TRUE(from_msgpack.ok()) << from_msgpack.status();
    EXPECT_GT(from_msgpack->nodes_size(), 1);
    EXPECT_EQ(from_msgpack->DebugString(), from_json->DebugString());
  }
}

// A file as Proton's own writer may lay one out: a non-negative count in a signed type (int 8),
// float 32 and float 64 values, integers of several widths, a list metric, device_info with the
// arch as a string. It reads as the same content written as JSON.
TEST(HatchetMsgPackReaderTest, ReadsAProtonShapedFileAsItsJsonForm) {
  const std::string kernel_metrics =
      Map(8) + Str("bytes") + Bytes({0xcd, 0x04, 0x00}) + Str("count") + Bytes({0xd0, 0x03}) +
      Str("device_id") + Str("0") + Str("device_type") + Str("CUDA") + Str("flops16") +
      Bytes({0xcb, 0x41, 0xe2, 0xa0, 0x5f, 0x20, 0x00, 0x00, 0x00}) + Str("time (ns)") +
      Bytes({0xce, 0x00, 0x02, 0x49, 0xf0}) + Str("tokens") + Array(3) + Bytes({0x01, 0xff, 0x7f}) +
      Str("util") + Bytes({0xca, 0x3f, 0x00, 0x00, 0x00});
  const std::string root_metrics = Map(4) + Str("bytes") + Bytes({0x00}) + Str("flops16") +
                                   Bytes({0x00}) + Str("time (ns)") + Bytes({0x00}) +
                                   Str("tokens") + Array(3) + Bytes({0x00, 0x00, 0x00});
  const std::string device =
      Map(5) + Str("arch") + Str("90") + Str("bus_width") + Bytes({0xcd, 0x14, 0x00}) +
      Str("clock_rate") + Bytes({0xce, 0x00, 0x1e, 0x36, 0x60}) + Str("memory_clock_rate") +
      Bytes({0xce, 0x00, 0x27, 0xf6, 0x78}) + Str("num_sms") + Bytes({0xcc, 132});
  const std::string file = Array(2) + Map(3) + Str("frame") + Frame("ROOT") + Str("metrics") +
                           root_metrics + Str("children") + Array(1) + Map(3) + Str("frame") +
                           Frame("matmul_kernel") + Str("metrics") + kernel_metrics +
                           Str("children") + Array(0) + Map(1) + Str("CUDA") + Map(1) + Str("0") +
                           device;
  absl::StatusOr<v1::Tree> tree = ParseHatchetProfile(file);
  ASSERT_TRUE(tree.ok()) << tree.status();

  absl::StatusOr<v1::Tree> from_json = ParseHatchet(R"json([
    {"frame": {"name": "ROOT", "type": "function"},
     "metrics": {"bytes": 0, "flops16": 0, "time (ns)": 0, "tokens": [0, 0, 0]},
     "children": [{"frame": {"name": "matmul_kernel", "type": "function"},
                   "metrics": {"bytes": 1024, "count": 3, "device_id": "0", "device_type": "CUDA",
                               "flops16": 2.5e9, "time (ns)": 150000, "tokens": [1, -1, 127],
                               "util": 0.5},
                   "children": []}]},
    {"CUDA": {"0": {"arch": "90", "bus_width": 5120, "clock_rate": 1980000,
                    "memory_clock_rate": 2619000, "num_sms": 132}}}])json");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(tree->DebugString(), from_json->DebugString());
  ASSERT_EQ(tree->nodes_size(), 2);
  EXPECT_EQ(tree->nodes(1).count(), 3u);
  ASSERT_EQ(tree->nodes(1).metrics_size(), 6);
  EXPECT_EQ(tree->nodes(1).metrics(4).name(), "tokens");
  EXPECT_EQ(tree->nodes(1).metrics(4).int_vector().values_size(), 3);
  EXPECT_EQ(tree->nodes(1).metrics(4).int_vector().values(1), -1);
  ASSERT_EQ(tree->devices_size(), 1);
  EXPECT_EQ(tree->devices(0).arch(), 90u);
  EXPECT_EQ(tree->devices(0).num_sms(), 132u);
}

TEST(HatchetMsgPackReaderTest, TheContentNotTheNameDecidesTheFormat) {
  const std::string json = R"([{"frame": {"name": "ROOT"}}])";
  ASSERT_TRUE(ParseHatchetProfile(json).ok());
  const std::string msgpack = Array(1) + Map(1) + Str("frame") + Map(1) + Str("name") + Str("ROOT");
  ASSERT_TRUE(ParseHatchetProfile(msgpack).ok());
  EXPECT_EQ(ParseHatchetProfile(Array(1) + Map(1) + Str("frame") + Array(0)).status().ToString(),
            "INVALID_ARGUMENT: MessagePack: /0: a node needs a \"frame\"");
  // A map first is no Hatchet profile in either format; JSON is the format tried.
  EXPECT_THAT(ParseHatchetProfile(Map(0)).status().ToString(),
              StartsWith("INVALID_ARGUMENT: not JSON: byte offset 0: "));
}

TEST(HatchetMsgPackReaderTest, TooDeepANestingIsRefusedBeforeDecodingOnASmallStack) {
  const std::string nested(1'000'000, '\x91');
  std::string error;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { error = Error(nested); }));
  EXPECT_EQ(error,
            "INVALID_ARGUMENT: MessagePack: byte offset 8198: an array nested deeper than 8198 "
            "arrays and maps");
  // Ten arrays, then maps each holding the next under the key "k".
  std::string maps(10, '\x91');
  for (int i = 0; i < 100'000; ++i) maps += "\x81\xa1k";
  EXPECT_EQ(Error(maps),
            "INVALID_ARGUMENT: MessagePack: byte offset 24574: a map nested deeper than 8198 "
            "arrays and maps");
}

// The nesting limit leaves room for the deepest tree protonctl reads, and one level more, so
// that a tree too deep is named as such.
TEST(HatchetMsgPackReaderTest, TreeDepthIsLimitedAsInJson) {
  // nlohmann's decoder recurses as deep as the bytes nest: it runs on a stack of its own, so the
  // caller's may be small.
  const std::string bytes = RenderHatchetMsgPack(Chain(kMaxTreeDepth));
  absl::StatusOr<v1::Tree> deepest;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { deepest = ParseHatchetMsgPack(bytes); }));
  ASSERT_TRUE(deepest.ok()) << deepest.status();
  EXPECT_EQ(deepest->nodes_size(), kMaxTreeDepth + 1);
  EXPECT_EQ(Error(RenderHatchetMsgPack(Chain(kMaxTreeDepth + 1))),
            "INVALID_ARGUMENT: MessagePack: the tree goes deeper than 4096 levels below ROOT, the "
            "most protonctl reads");
}

TEST(HatchetMsgPackReaderTest, TruncatedInputNamesTheOffset) {
  const std::string whole = RenderHatchetMsgPack(Chain(2));
  EXPECT_EQ(Error(whole.substr(0, whole.size() - 1)),
            "INVALID_ARGUMENT: MessagePack: byte offset " + std::to_string(whole.size() - 1) +
                ": the input ends where a value should start");
  EXPECT_EQ(Error(""),
            "INVALID_ARGUMENT: MessagePack: byte offset 0: the input ends where a value "
            "should start");
  EXPECT_EQ(Error(Array(1) + Map(1) + Str("frame") + Bytes({0xa4}) + "RO"),
            "INVALID_ARGUMENT: MessagePack: byte offset 8: the input ends inside a string: 4 bytes "
            "needed, 2 left");
  EXPECT_EQ(Error(Array(1) + Bytes({0xcb, 0x41})),
            "INVALID_ARGUMENT: MessagePack: byte offset 1: the input ends inside a float: 8 bytes "
            "needed, 1 left");
  EXPECT_EQ(
      Error(Array(1) + Bytes({0xda, 0x01})),
      "INVALID_ARGUMENT: MessagePack: byte offset 1: the input ends inside a string's length");
}

TEST(HatchetMsgPackReaderTest, LengthsPastTheEndAreRefused) {
  EXPECT_EQ(Error(Array(2) + Bytes({0xdd, 0xff, 0xff, 0xff, 0xff})),
            "INVALID_ARGUMENT: MessagePack: byte offset 1: an array of 4294967295 items needs at "
            "least 4294967295 bytes, but 0 are left");
  EXPECT_EQ(Error(Array(1) + Bytes({0xde, 0x00, 0x02}) + Str("a") + Bytes({0x00})),
            "INVALID_ARGUMENT: MessagePack: byte offset 1: a map of 2 entries needs at least 4 "
            "bytes, but 3 are left");
  EXPECT_EQ(Error(Array(1) + Bytes({0xdb, 0x7f, 0xff, 0xff, 0xff}) + "x"),
            "INVALID_ARGUMENT: MessagePack: byte offset 1: the input ends inside a string: "
            "2147483647 bytes needed, 1 left");
  EXPECT_EQ(Error(Array(1) + Map(0) + Bytes({0x00, 0x00})),
            "INVALID_ARGUMENT: MessagePack: byte offset 2: 2 bytes after the end of the profile");
}

// nlohmann's decoder would take binary data and extension types (as binary values) and stop at a
// key that is not a string with a message about string lengths: each is refused here by name.
TEST(HatchetMsgPackReaderTest, TypesAHatchetProfileDoesNotHaveAreRefusedByName) {
  const std::string node = Array(1) + Map(1) + Str("frame");
  EXPECT_EQ(
      Error(node + Bytes({0xc4, 0x01, 0x00})),
      "INVALID_ARGUMENT: MessagePack: byte offset 8: binary data (type byte 0xc4) is not part "
      "of a Hatchet profile");
  EXPECT_EQ(
      Error(node + Bytes({0xd4, 0x01, 0x00})),
      "INVALID_ARGUMENT: MessagePack: byte offset 8: an extension type (type byte 0xd4) is not "
      "part of a Hatchet profile");
  EXPECT_EQ(Error(node + Bytes({0xc1})),
            "INVALID_ARGUMENT: MessagePack: byte offset 8: type byte 0xc1 is never used in "
            "MessagePack");
  EXPECT_EQ(Error(Array(1) + Map(1) + Bytes({0x01, 0xc0})),
            "INVALID_ARGUMENT: MessagePack: byte offset 2: a map key must be a string, not an "
            "integer");
  EXPECT_EQ(Error(Array(1) + Map(1) + Map(0) + Bytes({0xc0})),
            "INVALID_ARGUMENT: MessagePack: byte offset 2: a map key must be a string, not a map");
  EXPECT_EQ(Error(node + Map(1) + Str("name") + Bytes({0xa2, 'a', 0xff})),
            "INVALID_ARGUMENT: MessagePack: byte offset 14: a string that is not UTF-8 (at its "
            "byte 1)");
}

// Well-formed MessagePack of the wrong shape gets the JSON reader's messages and JSON pointers.
TEST(HatchetMsgPackReaderTest, WrongTypesNameTheirJsonPointer) {
  const std::string root = Map(2) + Str("frame") + Frame("ROOT") + Str("children") + Array(1);
  auto node_with = [&](const std::string& metric) {
    return Array(1) + root + Map(2) + Str("frame") + Frame("k") + Str("metrics") + Map(1) + metric;
  };
  EXPECT_EQ(Error(node_with(Str("count") + Bytes({0xff}))),
            "INVALID_ARGUMENT: MessagePack: /0/children/0/metrics/count: count must be an integer "
            ">= 0, not -1");
  EXPECT_EQ(Error(node_with(Str("count") + Str("3"))),
            "INVALID_ARGUMENT: MessagePack: /0/children/0/metrics/count: count must be an integer "
            ">= 0, not \"3\"");
  EXPECT_EQ(Error(node_with(Str("v") + Array(1) + Array(0))),
            "INVALID_ARGUMENT: MessagePack: /0/children/0/metrics/v/0: a vector metric's element "
            "must be a number, not array");
  EXPECT_EQ(
      Error(node_with(Str("v") + Bytes({0xc3}))),
      "INVALID_ARGUMENT: MessagePack: /0/children/0/metrics/v: a metric must be a number or a "
      "list of numbers, not boolean");
  EXPECT_EQ(Error(Array(1) + Array(0)),
            "INVALID_ARGUMENT: MessagePack: /0: a node must be an object, not array");
  EXPECT_EQ(Error(Map(0)),
            "INVALID_ARGUMENT: MessagePack: /: a Hatchet profile is an array [root, device_info]");
}

TEST(HatchetMsgPackReaderTest, AFileErrorNamesThePathAndTheFormat) {
  const std::string path = ::testing::TempDir() + "/truncated.hatchet_msgpack";
  const std::string whole = RenderHatchetMsgPack(Chain(1));
  {
    std::ofstream file(path, std::ios::binary);
    file << whole.substr(0, whole.size() - 1);
  }
  EXPECT_EQ(ReadHatchetFile(path).status().ToString(),
            "INVALID_ARGUMENT: " + path + ": MessagePack: byte offset " +
                std::to_string(whole.size() - 1) + ": the input ends where a value should start");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace protond::view
