// A bar chart of values as percentages of a reference: per category a pair
// of vertical bars, the reference's at 100% and the value's at its
// percentage (labelled above it), the category's name slanted underneath.
// The y axis runs from 0% to a whole grid step at or above the tallest bar
// (100% at least), so every bar lies inside the plot; a title above and a
// legend in the plot's top right corner.
#ifndef ROCKPOOL_TOOLS_CHART_BAR_CHART_H_
#define ROCKPOOL_TOOLS_CHART_BAR_CHART_H_

#include <string>
#include <vector>

#include "tools/chart/svg.h"

namespace rockpool::chart {

struct Bar {
  std::string label;
  double value = 0;
  // The percentage is value / reference x 100. A reference of 0 or less
  // gives none: the value's bar is drawn as a sliver at 0%.
  double reference = 0;
};

struct PercentBarChart {
  std::string title;            // above the plot, left-aligned
  std::string reference_name;   // the legend adds " (= 100%)"
  std::string reference_color;  // SVG colours, as Series::color
  std::string value_name;
  std::string value_color;
  std::vector<Bar> bars;  // left to right
};

// value / reference x 100, or 0 without a positive reference.
double PercentOf(const Bar& bar);

// The chart's elements with `plot` as the plot area; the title, the grid's
// labels and the slanted category names fall outside it (about 40 units
// left, 70 below and 20 above), for SvgDocument's body.
std::string DrawPercentBarChart(const PercentBarChart& chart, const Box& plot);

}  // namespace rockpool::chart

#endif  // ROCKPOOL_TOOLS_CHART_BAR_CHART_H_
