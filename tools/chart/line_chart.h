// A line chart of named (x, y) series in one plot area: each series a
// polyline, solid or dashed, in its colour; the x axis ticked and labelled
// underneath, the y axis as grid lines labelled on the left, a title above
// and a legend in the plot's top left corner. Both axes start at 0 and end
// at a whole tick step at or above the largest value of any series, so
// every point lies inside the plot (negative values are not drawn inside).
#ifndef ROCKPOOL_TOOLS_CHART_LINE_CHART_H_
#define ROCKPOOL_TOOLS_CHART_LINE_CHART_H_

#include <functional>
#include <string>
#include <vector>

#include "tools/chart/svg.h"

namespace rockpool::chart {

struct Point {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string name;   // its legend entry
  std::string color;  // an SVG colour: "#1f77b4", "red"
  // Dashed lines are drawn thinner (1.5 against 2.5): a dashed series is
  // read as the secondary one beside a solid.
  bool dashed = false;
  // In drawing order; a series without points is in the legend only.
  std::vector<Point> points;
};

// How an axis is ticked: about `intervals` steps, 1, 2 or 5 x 10^k or with
// `powers_of_two` 2^k; each tick labelled by `label` ("%g" when empty).
struct Ticks {
  int intervals = 5;
  bool powers_of_two = false;
  std::function<std::string(double)> label;
};

struct LineChart {
  std::string title;    // above the plot, left-aligned
  std::string x_label;  // centred under the x axis
  Ticks x_ticks;
  Ticks y_ticks;
  std::vector<Series> series;  // drawn in order, the last on top
};

// The chart's elements with `plot` as the plot area; the title, the ticks'
// labels and the x label fall outside it (about 60 units left, 40 below and
// 20 above), for SvgDocument's body.
std::string DrawLineChart(const LineChart& chart, const Box& plot);

}  // namespace rockpool::chart

#endif  // ROCKPOOL_TOOLS_CHART_LINE_CHART_H_
