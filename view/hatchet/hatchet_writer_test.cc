#include "view/hatchet/hatchet_writer.h"

#include "common/testing/small_stack.h"
#include "common/tree/tree_depth.h"
#include "gtest/gtest.h"
#include "view/testing/test_trees.h"

namespace protond::view {
namespace {

using testing::AddDouble;
using testing::AddInt;
using testing::AddNode;

TEST(RenderHatchet, WritesProtonsLayout) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddInt(AddNode(&tree, 1, 0, "model", 1), "flops", v1::Metric::INCLUSIVE, 100);
  v1::TreeNode* kernel = AddNode(&tree, 2, 1, "add_one", 3);
  AddInt(kernel, "time (ns)", v1::Metric::INCLUSIVE, 300);
  AddInt(kernel, "device_id", v1::Metric::PROPERTY, 0);
  v1::TreeNode* cpu = AddNode(&tree, 3, 0, "cpu", 2);
  AddInt(cpu, "cpu_time (ns)", v1::Metric::EXCLUSIVE, 50);
  AddDouble(cpu, "loss", 2.0);
  v1::Device* device = tree.add_devices();
  device->set_device_id(0);
  device->set_name("NVIDIA H100 80GB HBM3");
  device->set_arch(90);
  device->set_num_sms(132);
  device->set_clock_rate_khz(1980000);
  device->set_memory_clock_rate_khz(2619000);
  device->set_bus_width_bits(5120);
  device->set_memory_bytes(85028929536);

  EXPECT_EQ(RenderHatchet(tree), R"json(
[
    {
        "children": [
            {
                "children": [
                    {
                        "children": [],
                        "frame": {
                            "name": "add_one",
                            "type": "function"
                        },
                        "metrics": {
                            "count": 3,
                            "device_id": "0",
                            "device_type": "CUDA",
                            "time (ns)": 300
                        }
                    }
                ],
                "frame": {
                    "name": "model",
                    "type": "function"
                },
                "metrics": {
                    "flops": 100
                }
            },
            {
                "children": [],
                "frame": {
                    "name": "cpu",
                    "type": "function"
                },
                "metrics": {
                    "cpu_time (ns)": 50,
                    "loss": 2.0
                }
            }
        ],
        "frame": {
            "name": "ROOT",
            "type": "function"
        },
        "metrics": {
            "count": 0,
            "flops": 0,
            "loss": 0,
            "time (ns)": 0
        }
    },
    {
        "CUDA": {
            "0": {
                "arch": "90",
                "bus_width": 5120,
                "clock_rate": 1980000,
                "memory_clock_rate": 2619000,
                "num_sms": 132
            }
        }
    }
]
)json");
}

TEST(RenderHatchet, AnEmptySessionIsARootWithNoMetrics) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  EXPECT_EQ(RenderHatchet(tree), R"json(
[
    {
        "children": [],
        "frame": {
            "name": "ROOT",
            "type": "function"
        },
        "metrics": {}
    },
    {}
]
)json");
}

TEST(RenderHatchet, EscapesNonAsciiNamesAndKeepsSiblingOrder) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 1, 0, "zeta");
  AddNode(&tree, 2, 0,
          "r\xc3\xbc"
          "ckw\xc3\xa4"
          "rts");
  const std::string text = RenderHatchet(tree);
  const size_t zeta = text.find("\"zeta\"");
  const size_t wide = text.find(R"("r\u00fcckw\u00e4rts")");
  ASSERT_NE(zeta, std::string::npos);
  ASSERT_NE(wide, std::string::npos) << text;
  EXPECT_LT(zeta, wide);  // first-seen order, not sorted
}

TEST(RenderHatchet, ANodeWhoseParentIsMissingIsLeftOut) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 5, 9, "orphan");
  EXPECT_EQ(RenderHatchet(tree).find("orphan"), std::string::npos);
}

// ROOT, then `levels` scopes "s", each inside the one before.
v1::Tree Chain(int levels) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  for (int i = 1; i <= levels; ++i) AddNode(&tree, i, i - 1, "s");
  return tree;
}

// Chain(levels) as RenderHatchet writes it compact.
std::string CompactChain(int levels) {
  std::string text = "\n[";
  for (int i = 0; i < levels; ++i) text += R"({"children":[)";
  text += R"({"children":[],"frame":{"name":"s","type":"function"},"metrics":{}})";
  for (int i = 1; i < levels; ++i)
    text += R"(],"frame":{"name":"s","type":"function"},"metrics":{}})";
  return text + R"(],"frame":{"name":"ROOT","type":"function"},"metrics":{}},{}])" + "\n";
}

// A tree deeper than Proton's layout is written for is written compact: indented, every line of a
// node at depth d would start with 8 d spaces. Before (issue 27): a 10,000-level tree came to
// 5.6 GB; a 1,000-level one to 56 MB.
TEST(RenderHatchet, ADeepTreeIsWrittenCompactInBytesProportionalToIt) {
  EXPECT_EQ(RenderHatchet(Chain(2)).substr(0, 20), "\n[\n    {\n        \"ch");  // Proton's
  const std::string text = RenderHatchet(Chain(1000));
  EXPECT_EQ(text.size(), CompactChain(1000).size());
  EXPECT_TRUE(text == CompactChain(1000));
}

// Before (issue 27): nlohmann's serializer recursed two levels a node, and 25,000 levels crashed
// protonctl export --format hatchet.
TEST(RenderHatchet, ATreeAsDeepAsTheLimitIsWrittenWithoutRecursion) {
  const v1::Tree tree = Chain(kMaxTreeDepth);
  std::string text;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { text = RenderHatchet(tree); }));
  EXPECT_TRUE(text == CompactChain(kMaxTreeDepth));
}

}  // namespace
}  // namespace protond::view
