#include "view/jobs/nccl_kernel_name.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::view {
namespace {

NcclKernel Parsed(std::string_view name) {
  std::optional<NcclKernel> kernel = ParseNcclKernelName(name);
  EXPECT_TRUE(kernel.has_value()) << name;
  return kernel.value_or(NcclKernel{});
}

// "op reduction datatype algorithm protocol", "-" for a field the name lacks.
std::string Fields(std::string_view name) {
  const NcclKernel kernel = Parsed(name);
  std::string out;
  for (const std::string* field :
       {&kernel.op, &kernel.reduction, &kernel.datatype, &kernel.algorithm, &kernel.protocol}) {
    if (!out.empty()) out += ' ';
    out += field->empty() ? "-" : *field;
  }
  return out;
}

TEST(NcclKernelNameTest, ReadsAReducingCollectiveOfNccl219On) {
  EXPECT_EQ(Parsed("ncclDevKernel_AllReduce_Sum_f32_RING_LL").kind, NcclKernel::Kind::kCollective);
  EXPECT_EQ(Fields("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "AllReduce Sum f32 RING LL");
}

TEST(NcclKernelNameTest, ReadsAlgorithmsAndProtocolsWithUnderscoresAndDigits) {
  EXPECT_EQ(Fields("ncclDevKernel_ReduceScatter_PreMulSum_bf16_NVLS_TREE_LL128"),
            "ReduceScatter PreMulSum bf16 NVLS_TREE LL128");
  EXPECT_EQ(Fields("ncclDevKernel_Reduce_MinMax_u64_COLLNET_DIRECT_SIMPLE"),
            "Reduce MinMax u64 COLLNET_DIRECT SIMPLE");
}

TEST(NcclKernelNameTest, ACollectiveWithoutReductionHasNoneAndNoDatatype) {
  EXPECT_EQ(Fields("ncclDevKernel_AllGather_PAT_SIMPLE"), "AllGather - - PAT SIMPLE");
  EXPECT_EQ(Fields("ncclDevKernel_Broadcast_RING_LL"), "Broadcast - - RING LL");
}

TEST(NcclKernelNameTest, ReadsNamesBeforeNccl219WithTheirCTypes) {
  EXPECT_EQ(Fields("ncclKernel_AllReduce_RING_LL_Sum_float"), "AllReduce Sum f32 RING LL");
  EXPECT_EQ(Fields("void ncclKernel_AllGather_TREE_LL128_Sum___nv_bfloat16(ncclWorkElem)"),
            "AllGather Sum bf16 TREE LL128");
}

TEST(NcclKernelNameTest, ReadsMangledAndDemangledForms) {
  EXPECT_EQ(Parsed("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE")
                .protocol,
            "LL");
  EXPECT_EQ(
      Parsed("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)").algorithm,
      "RING");
}

TEST(NcclKernelNameTest, SendRecvAndGenericAreNcclKernelsOfNoCollective) {
  EXPECT_EQ(Parsed("ncclDevKernel_SendRecv").kind, NcclKernel::Kind::kPointToPoint);
  EXPECT_EQ(Parsed("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t").kind,
            NcclKernel::Kind::kPointToPoint);
  EXPECT_EQ(Parsed("ncclDevKernel_Generic").kind, NcclKernel::Kind::kGeneric);
  EXPECT_EQ(Parsed("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)").kind,
            NcclKernel::Kind::kGeneric);
  EXPECT_EQ(Parsed("ncclDevKernel_Frobnicate_RING_LL").kind, NcclKernel::Kind::kGeneric);
}

TEST(NcclKernelNameTest, OtherKernelsAreNotNccl) {
  for (std::string_view name :
       {"", "gemm", "ncclDevKernel", "_Z4gemmv", "void at::native::vectorized_elementwise_kernel",
        "my_ncclDevKernel_AllReduce_Sum_f32_RING_LL", "nccl_AllReduce_kernel"}) {
    EXPECT_FALSE(ParseNcclKernelName(name).has_value()) << name;
  }
}

TEST(NcclKernelNameTest, HostileNamesNeverReadPastTheirEnd) {
  // A mangled length past the end, a huge one, no digits at all, a lone prefix.
  for (std::string_view name :
       {"_Z99ncclDevKernel_AllReduce", "_Z99999999999999999999nccl", "_Z", "_Zx", "ncclDevKernel_",
        "ncclKernel_AllReduce_", "ncclDevKernel_AllReduce_Sum_f32_RING_",
        "ncclDevKernel_AllReduce____"}) {
    const std::optional<NcclKernel> kernel = ParseNcclKernelName(name);
    if (kernel.has_value()) {
      EXPECT_LE(kernel->datatype.size(), name.size()) << name;
    }
  }
  // A truncated name keeps what it says: the collective, not an algorithm it lacks.
  EXPECT_EQ(Fields("ncclDevKernel_AllReduce_Sum_f32_RING_"), "AllReduce - - - -");
}

}  // namespace
}  // namespace protond::view
