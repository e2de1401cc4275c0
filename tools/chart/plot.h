// What the line and bar charts share, private to tools/chart: the tick
// steps of an axis, the horizontal grid with its labels, the plot's frame
// and the legend box.
#ifndef ROCKPOOL_TOOLS_CHART_PLOT_H_
#define ROCKPOOL_TOOLS_CHART_PLOT_H_

#include <functional>
#include <string>
#include <vector>

#include "tools/chart/svg.h"

namespace rockpool::chart {

// A tick step giving about `intervals` intervals from 0 to `max`: 1, 2 or
// 5 x 10^k, or with `powers_of_two` 2^k (byte axes then read 256 MiB,
// 512 MiB, ...). 1 when `max` is not above 0.
double TickStep(double max, int intervals, bool powers_of_two);

// The axis's top: `max` rounded up to a whole step, at least one step.
double AxisTop(double max, double step);

// The y coordinate of `v` on a plot whose axis runs from 0 (bottom) to `top`.
double ScaleY(const Box& plot, double top, double v);

// Grid lines across the plot every `step` from 0 to `top`, each labelled
// left of the plot by `label`.
std::string HorizontalGrid(const Box& plot, double top, double step,
                           const std::function<std::string(double)>& label);

std::string Frame(const Box& plot);

// One legend row: a short line (solid or dashed) or a filled block in
// `color`, then `label`.
struct LegendEntry {
  std::string label;
  std::string color;
  enum Swatch { kLine, kDashedLine, kBlock } swatch = kLine;
};

// The legend in a box of its own, inside the plot's top left or top right
// corner, as wide as its longest label needs.
std::string Legend(const Box& plot, const std::vector<LegendEntry>& entries, bool right);

// The stroke attributes of a line: dashed ones carry stroke-dasharray.
std::string Stroke(const std::string& color, double width, bool dashed);

}  // namespace rockpool::chart

#endif  // ROCKPOOL_TOOLS_CHART_PLOT_H_
