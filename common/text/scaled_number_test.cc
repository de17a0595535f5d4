#include "common/text/scaled_number.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(ByteSizeTest, SizesTakeBinaryUnitsAndABareNumberIsBytes) {
  EXPECT_EQ(*ParseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseByteSize("500MiB"), 500u << 20);
  EXPECT_EQ(*ParseByteSize("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(*ParseByteSize("1TiB"), uint64_t{1} << 40);
  EXPECT_EQ(*ParseByteSize("4096B"), 4096u);
  EXPECT_EQ(*ParseByteSize("1000000"), 1000000u);
  for (const char* bad :
       {"", "0", "0GiB", "-1GiB", "+5", " 5", "GiB", "2GB", "1.5GiB", "2gib", "99999999999TiB"}) {
    absl::StatusOr<uint64_t> parsed = ParseByteSize(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().message(),
              std::string("'") + bad +
                  "' is not a size (a positive number with KiB, MiB, GiB or TiB; a bare number "
                  "is bytes)");
  }
}

}  // namespace
}  // namespace protond::text
