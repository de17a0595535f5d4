#include "view/render/colour_bands.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

constexpr char kRed[] = "\033[38;5;196m";
constexpr char kOrange[] = "\033[38;5;208m";
constexpr char kYellow[] = "\033[38;5;220m";
constexpr char kBrightGreen[] = "\033[38;5;46m";
constexpr char kGreen[] = "\033[38;5;34m";
constexpr char kDarkGreen[] = "\033[38;5;22m";

TEST(ColourBandsTest, RangeIsOverShownFiniteValuesOnly) {
  const std::vector<MetricValue> values = {MetricValue::Double(50), MetricValue::Int(10),
                                           MetricValue(),           MetricValue::Double(1.0 / 0.0),
                                           MetricValue::Int(-5),    MetricValue::Double(20)};
  const std::optional<ColourBands> bands = BandsOf(values, {true, true, true, true, false, true});
  ASSERT_TRUE(bands.has_value());
  EXPECT_EQ(bands->min, 10);
  EXPECT_EQ(bands->max, 50);
  EXPECT_FALSE(BandsOf({MetricValue()}, {true}).has_value());
  EXPECT_FALSE(BandsOf({MetricValue::Int(3)}, {false}).has_value());
}

// Range 100..200: a band holds the values above its lower edge, up to and with its upper one.
TEST(ColourBandsTest, ValuesFallInTheBandOfTheirShareOfTheRange) {
  const ColourBands bands{100, 200};
  EXPECT_STREQ(BandColour(bands, 200), kRed);
  EXPECT_STREQ(BandColour(bands, 190.5), kRed);
  EXPECT_STREQ(BandColour(bands, 190), kOrange);
  EXPECT_STREQ(BandColour(bands, 171), kOrange);
  EXPECT_STREQ(BandColour(bands, 170), kYellow);
  EXPECT_STREQ(BandColour(bands, 151), kYellow);
  EXPECT_STREQ(BandColour(bands, 131), kBrightGreen);
  EXPECT_STREQ(BandColour(bands, 111), kGreen);
  EXPECT_STREQ(BandColour(bands, 110), kDarkGreen);
  EXPECT_STREQ(BandColour(bands, 100), kDarkGreen);
}

TEST(ColourBandsTest, OneValueIsTheTopBand) {
  EXPECT_STREQ(BandColour(ColourBands{7, 7}, 7), kRed);
}

TEST(ColourBandsTest, LegendListsTheBandsFromTheTop) {
  EXPECT_EQ(RenderLegend("time (ms)", ColourBands{0, 5}),
            absl::StrCat("\n\033[4mLegend\033[0m (metric: time (ms))\n",  //
                         kRed, "█\033[0m 4.500 - 5.000\n",                //
                         kOrange, "█\033[0m 3.500 - 4.500\n",             //
                         kYellow, "█\033[0m 2.500 - 3.500\n",             //
                         kBrightGreen, "█\033[0m 1.500 - 2.500\n",        //
                         kGreen, "█\033[0m 0.500 - 1.500\n",              //
                         kDarkGreen, "█\033[0m 0.000 - 0.500\n"));
}

}  // namespace
}  // namespace protond::view
