#include "view/render/colour_bands.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::view {
namespace {

struct Band {
  double low;  // share of the range, from the minimum
  double high;
  const char* colour;
};

// Highest first. The palette entries are xterm's 256-colour ones that hatchet uses, so a user
// who knows proton-viewer's colours reads ours the same way.
constexpr std::array<Band, 6> kBands = {{
    {0.9, 1.0, "\033[38;5;196m"},  // red
    {0.7, 0.9, "\033[38;5;208m"},  // orange
    {0.5, 0.7, "\033[38;5;220m"},  // yellow
    {0.3, 0.5, "\033[38;5;46m"},   // bright green
    {0.1, 0.3, "\033[38;5;34m"},   // green
    {0.0, 0.1, "\033[38;5;22m"},   // dark green
}};

}  // namespace

std::optional<ColourBands> BandsOf(const std::vector<MetricValue>& values,
                                   const std::vector<bool>& shown) {
  std::optional<ColourBands> bands;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!shown[i] || values[i].blank()) continue;
    const double value = values[i].AsDouble();
    if (!std::isfinite(value)) continue;
    if (!bands.has_value()) bands = ColourBands{value, value};
    bands->min = std::min(bands->min, value);
    bands->max = std::max(bands->max, value);
  }
  return bands;
}

const char* BandColour(const ColourBands& bands, double value) {
  const double range = bands.max - bands.min;
  const double share = range > 0 ? (value - bands.min) / range : 1.0;
  for (const Band& band : kBands) {
    if (share > band.low) return band.colour;
  }
  return kBands.back().colour;
}

std::string RenderLegend(const std::string& header, const ColourBands& bands) {
  std::string legend = absl::StrCat("\n\033[4mLegend", kColourEnd, " (metric: ", header, ")\n");
  const double range = bands.max - bands.min;
  for (const Band& band : kBands) {
    absl::StrAppendFormat(&legend, "%s█%s %.3f - %.3f\n", band.colour, kColourEnd,
                          bands.min + band.low * range, bands.min + band.high * range);
  }
  return legend;
}

}  // namespace protond::view
