// Plain SVG 1.1 charts, general (they know nothing of what they draw): no
// scripts, no external files, fonts by family name only, so any viewer shows
// them offline. Every string given here is XML-escaped, colours too; control
// characters XML 1.0 does not allow (below 0x20 but tab, newline, carriage
// return) become '?'. Coordinates are SVG user units, y growing downwards.
#ifndef ROCKPOOL_TOOLS_CHART_CHART_H_
#define ROCKPOOL_TOOLS_CHART_CHART_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rockpool::chart {

struct Box {  // a rectangle: top left corner, width, height
  double x = 0, y = 0, w = 0, h = 0;
};

// A <text> element. `attrs` is written as given and must be well-formed
// attributes; the stylesheet's classes: "t" a title, "h" a heading.
std::string Text(double x, double y, absl::string_view text, absl::string_view attrs = "");

// The whole document, `width` by `height`, on a white background: the XML
// declaration, the root element with its stylesheet, `body`, the end tag.
std::string SvgDocument(double width, double height, absl::string_view body);

struct Point {
  double x = 0, y = 0;
};

struct Series {
  std::string name;           // its legend entry
  std::string color;          // an SVG colour: "#1f77b4", "red"
  bool dashed = false;        // thinner (1.5 against 2.5): the secondary beside a solid
  std::vector<Point> points;  // in drawing order; none: in the legend only
};

// Each series a polyline, the last on top; the x axis ticked every 1, 2 or
// 5 x 10^k, grid lines for y, a legend 190 units wide (names of about 22
// characters) in the plot's top left corner. Both axes run from 0 to a
// whole step at or above the largest value: every point lies in the plot.
struct LineChart {
  std::string title;    // above the plot
  std::string x_label;  // under the x axis
  // Set, an axis of bytes: y ticks 2^k apart (256 MiB, 512 MiB, ...), each
  // labelled by it. Unset: 1, 2 or 5 x 10^k apart, labelled "%g".
  std::string (*y_bytes)(double) = nullptr;
  std::vector<Series> series;
};

// A value as a percentage of its reference; 0% without a positive reference.
struct Bar {
  std::string label;
  double value = 0;
  double reference = 0;
};

// Per bar, left to right, the reference's bar at 100% and the value's at its
// percentage, labelled above it, the label slanted underneath; the y axis
// from 0% to a whole step at or above the tallest bar (100% at least). A
// legend 142 units wide in the plot's top right corner.
struct PercentBarChart {
  std::string title;           // above the plot
  std::string reference_name;  // the legend adds " (= 100%)"
  std::string reference_color;
  std::string value_name;
  std::string value_color;
  std::vector<Bar> bars;
};

// A chart's elements with `plot` as the plot area, for SvgDocument's body.
// The title and the axes' labels fall outside it: about 60 units left, 20
// above and 40 below (70 below a bar chart: its labels are slanted).
std::string DrawLineChart(const LineChart& chart, const Box& plot);
std::string DrawPercentBarChart(const PercentBarChart& chart, const Box& plot);

}  // namespace rockpool::chart

#endif  // ROCKPOOL_TOOLS_CHART_CHART_H_
