// The colours proton-viewer gives the first metric when it prints to a terminal (through
// hatchet's console renderer): the range from the smallest to the largest value shown is cut into
// six bands, red for the top tenth down to dark green for the bottom tenth, and a legend under
// the tree says which values each colour stands for. Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_COLOUR_BANDS_H_
#define PROTOND_VIEW_RENDER_COLOUR_BANDS_H_

#include <optional>
#include <string>
#include <vector>

#include "view/render/metric_values.h"

namespace protond::view {

// Ends a coloured stretch of text.
inline constexpr char kColourEnd[] = "\033[0m";

// The range the bands divide.
struct ColourBands {
  double min = 0;
  double max = 0;
};

// The range of `values` at the positions `shown` marks; blank and non-finite values do not count.
// nullopt when no value counts.
std::optional<ColourBands> BandsOf(const std::vector<MetricValue>& values,
                                   const std::vector<bool>& shown);

// The ANSI escape (256-colour foreground) of the band `value` falls in. With a range of zero
// every value is in the top band.
const char* BandColour(const ColourBands& bands, double value);

// "Legend (metric: HEADER)" underlined, then one line per band from the top: a coloured block
// and the values it stands for, with 3 decimals as the tree prints them.
std::string RenderLegend(const std::string& header, const ColourBands& bands);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_COLOUR_BANDS_H_
