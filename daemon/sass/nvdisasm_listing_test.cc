// ParseNvdisasm on nvdisasm's own listing of compute_blocks (CUDA 13.0, sm_90) and on listings
// written here: several functions, line info, hex encodings, a missing function.
#include <string>

#include "common/files/read_file.h"
#include "daemon/sass/sass_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::sass {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

std::string ComputeBlocksListing() {
  auto listing =
      files::ReadWholeFile(PROTOND_SASS_TESTDATA "/compute_blocks.c.txt", "nvdisasm listing");
  EXPECT_TRUE(listing.ok()) << listing.status();
  return listing.ok() ? *listing : "";
}

TEST(NvdisasmListingTest, RealListingByOffset) {
  auto instructions = ParseNvdisasm(ComputeBlocksListing(), "compute_blocks");
  ASSERT_TRUE(instructions.ok()) << instructions.status();
  // 0x0000 to 0x1c70, 16 bytes apart.
  EXPECT_EQ(instructions->size(), 456u);
  EXPECT_EQ(instructions->begin()->first, 0x0000u);
  EXPECT_EQ(instructions->rbegin()->first, 0x1c70u);
  EXPECT_EQ(instructions->at(0x0000), "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(instructions->at(0x0140), "@P2 BRA `(.L_x_1)");
  EXPECT_EQ(instructions->at(0x03f0), "@!P1 LOP3.LUT R10, RZ, UR6, RZ, 0x33, !PT");
  EXPECT_EQ(instructions->at(0x0520), "LDG.E R15, desc[UR4][R8.64]");
  // The first instruction after a label.
  EXPECT_EQ(instructions->at(0x01e0), "BSYNC B0");
  // The helper the compiler placed in the kernel's section, after its .weak/.type directives.
  EXPECT_EQ(instructions->at(0x17c0), "ULDC.64 UR6, c[0x0][0x228]");
  // nvdisasm writes no space before this one's ";".
  EXPECT_EQ(instructions->at(0x1be0), "BRA `(.L_x_6)");
  EXPECT_EQ(instructions->at(0x1c70), "NOP");
}

TEST(NvdisasmListingTest, MissingFunctionNamesTheListingsFunctions) {
  auto instructions = ParseNvdisasm(ComputeBlocksListing(), "compute");
  EXPECT_EQ(instructions.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(instructions.status().message(),
            "nvdisasm listing has no function compute (no section .text.compute); its functions: "
            "compute_blocks");
}

TEST(NvdisasmListingTest, EmptyListingHasNoFunctions) {
  auto instructions = ParseNvdisasm("", "compute_blocks");
  EXPECT_EQ(instructions.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(instructions.status().message(),
            "nvdisasm listing has no function compute_blocks (no section .text.compute_blocks); "
            "its functions: none");
}

// Two functions, one's name a prefix of the other's; line info as -g prints it with -lineinfo
// cubins, and hex encodings as -hex prints them.
constexpr char kTwoFunctions[] = R"(	.target	sm_90

//--------------------- .text._Z6reducePf      --------------------------
	.section	.text._Z6reducePf,"ax",@progbits
        .global         _Z6reducePf
_Z6reducePf:
.text._Z6reducePf:
	//## File "/src/reduce.cu", line 12
        /*0000*/                   LDC R1, c[0x0][0x28] ;                    /* 0x00000a00ff017b82 */
                                                                             /* 0x000fe20000000800 */
        /*0010*/                   EXIT ;                                    /* 0x000000000000794d */
                                                                             /* 0x000fea0003800000 */
//--------------------- .text._Z6reducePfi      --------------------------
	.section	.text._Z6reducePfi,"ax",@progbits
        .global         _Z6reducePfi
_Z6reducePfi:
.text._Z6reducePfi:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_0:
        /*0010*/              @!P0 BRA `(.L_x_0) ;
        /*0020*/                   EXIT ;


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
)";

TEST(NvdisasmListingTest, PicksTheFunctionsOwnSection) {
  auto first = ParseNvdisasm(kTwoFunctions, "_Z6reducePf");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(*first, ElementsAre(Pair(0x00, "LDC R1, c[0x0][0x28]"), Pair(0x10, "EXIT")));
  auto second = ParseNvdisasm(kTwoFunctions, "_Z6reducePfi");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(*second, ElementsAre(Pair(0x00, "S2R R0, SR_TID.X"), Pair(0x10, "@!P0 BRA `(.L_x_0)"),
                                   Pair(0x20, "EXIT")));
}

TEST(NvdisasmListingTest, MissingFunctionAmongSeveral) {
  EXPECT_EQ(ParseNvdisasm(kTwoFunctions, "_Z6reduce").status().message(),
            "nvdisasm listing has no function _Z6reduce (no section .text._Z6reduce); its "
            "functions: _Z6reducePf, _Z6reducePfi");
}

TEST(NvdisasmListingTest, RepeatedOffsetIsRefused) {
  constexpr char kRepeated[] = R"(	.section	.text.k,"ax",@progbits
        /*0000*/                   NOP ;
        /*0000*/                   EXIT ;
)";
  auto instructions = ParseNvdisasm(kRepeated, "k");
  EXPECT_EQ(instructions.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(instructions.status().message(),
            "nvdisasm listing: offset 0x0000 appears twice in .text.k");
}

}  // namespace
}  // namespace protond::sass
