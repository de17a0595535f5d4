#include "shim/gpu/pc_sample_aggregator.h"

#include <gtest/gtest.h>

#include <map>

namespace protond::shim::gpu {
namespace {

constexpr uint32_t kFunction = 5;
constexpr SampleKey kLoadLine = {kFunction, /*line=*/8, /*reason=*/9, /*pc=*/0x1a0,
                                 /*cubin_crc=*/0xc0b1};

// Samples by (context, kernel name) of `records`, which must all be of kLoadLine.
std::map<std::pair<uint32_t, uint32_t>, uint64_t> ByTarget(
    const std::vector<record::PcSampleRecord>& records) {
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> out;
  for (const record::PcSampleRecord& r : records) {
    EXPECT_EQ(r.header.kind, static_cast<uint8_t>(record::Kind::kPcSample));
    EXPECT_EQ(r.line_name_id, kLoadLine.line_name_id);
    EXPECT_EQ(r.reason_name_id, kLoadLine.reason_name_id);
    EXPECT_EQ(r.pc_offset, kLoadLine.pc_offset);
    EXPECT_EQ(r.cubin_crc, kLoadLine.cubin_crc);
    out[{r.header.aux, r.kernel_name_id}] += r.samples;
  }
  return out;
}

TEST(PcSampleAggregatorTest, AFunctionRunFromOneNodeGetsAllItsSamples) {
  PcSampleAggregator aggregator;
  aggregator.KernelRan(kFunction, /*context=*/3, kFunction, 1000);
  aggregator.AddSamples(kLoadLine, 40);
  aggregator.AddSamples(kLoadLine, 2);
  EXPECT_EQ(ByTarget(aggregator.TakeRecords(false)),
            (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{{{3, kFunction}, 42}}));
  EXPECT_TRUE(aggregator.TakeRecords(false).empty());  // taken once
}

TEST(PcSampleAggregatorTest, SamplesAreSplitByGpuTimeAndAddUpExactly) {
  PcSampleAggregator aggregator;
  aggregator.KernelRan(kFunction, 3, kFunction, 300);
  aggregator.KernelRan(kFunction, 4, /*launch frame's name=*/77, 100);
  aggregator.AddSamples(kLoadLine, 8);
  EXPECT_EQ(ByTarget(aggregator.TakeRecords(false)),
            (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{{{3, kFunction}, 6}, {{4, 77}, 2}}));

  PcSampleAggregator thirds;
  for (uint32_t context : {3, 4, 6}) thirds.KernelRan(kFunction, context, kFunction, 50);
  thirds.AddSamples(kLoadLine, 10);
  uint64_t total = 0;
  for (const auto& [target, samples] : ByTarget(thirds.TakeRecords(false))) {
    EXPECT_TRUE(samples == 3 || samples == 4) << samples;
    total += samples;
  }
  EXPECT_EQ(total, 10u);
}

TEST(PcSampleAggregatorTest, HugeCountsAndTimesDoNotOverflow) {
  PcSampleAggregator aggregator;
  aggregator.KernelRan(kFunction, 3, kFunction, uint64_t{1} << 62);
  aggregator.KernelRan(kFunction, 4, kFunction, uint64_t{1} << 62);
  aggregator.AddSamples(kLoadLine, uint64_t{1} << 40);
  EXPECT_EQ(ByTarget(aggregator.TakeRecords(false)),
            (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{
                {{3, kFunction}, uint64_t{1} << 39}, {{4, kFunction}, uint64_t{1} << 39}}));
}

TEST(PcSampleAggregatorTest, SamplesWaitForTheirKernelsRecords) {
  PcSampleAggregator aggregator;
  aggregator.AddSamples(kLoadLine, 5);
  EXPECT_TRUE(aggregator.TakeRecords(false).empty());
  aggregator.KernelRan(kFunction, 3, kFunction, 10);
  EXPECT_EQ(ByTarget(aggregator.TakeRecords(false)),
            (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{{{3, kFunction}, 5}}));
  EXPECT_EQ(aggregator.unattributed_samples(), 0u);
}

TEST(PcSampleAggregatorTest, AtTheEndSamplesOfKernelsNeverSeenGoUnderRootAndAreCounted) {
  PcSampleAggregator aggregator;
  aggregator.AddSamples(kLoadLine, 5);
  aggregator.AddSamples({kFunction, 8, 9, 0x1b0}, 0);  // nothing
  EXPECT_EQ(ByTarget(aggregator.TakeRecords(true)),
            (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{
                {{record::kRootContextId, kFunction}, 5}}));
  EXPECT_EQ(aggregator.unattributed_samples(), 5u);
}

}  // namespace
}  // namespace protond::shim::gpu
