#include "tools/chart/line_chart.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/chart/plot.h"

namespace rockpool::chart {
namespace {

std::function<std::string(double)> LabelOf(const Ticks& ticks) {
  if (ticks.label) return ticks.label;
  return [](double v) { return absl::StrFormat("%g", v); };
}

}  // namespace

std::string DrawLineChart(const LineChart& chart, const Box& plot) {
  double max_x = 0, max_y = 0;
  for (const Series& s : chart.series) {
    for (const Point& p : s.points) {
      max_x = std::max(max_x, p.x);
      max_y = std::max(max_y, p.y);
    }
  }
  const Ticks& xt = chart.x_ticks;
  const Ticks& yt = chart.y_ticks;
  const double x_step = TickStep(max_x, xt.intervals, xt.powers_of_two);
  const double y_step = TickStep(max_y, yt.intervals, yt.powers_of_two);
  const double x_top = AxisTop(max_x, x_step);
  const double y_top = AxisTop(max_y, y_step);
  auto X = [&](double v) { return plot.x + v / x_top * plot.w; };
  const double bottom = plot.y + plot.h;

  std::string out = Text(plot.x, plot.y - 12, chart.title, "class=\"h\"");
  absl::StrAppend(&out, HorizontalGrid(plot, y_top, y_step, LabelOf(yt)));
  const auto x_label = LabelOf(xt);
  for (double v = 0; v <= x_top + x_step / 2; v += x_step) {
    absl::StrAppend(&out, Line(X(v), bottom, X(v), bottom + 4, "class=\"axis\""),
                    Text(X(v), bottom + 18, x_label(v), "text-anchor=\"middle\""));
  }
  absl::StrAppend(&out, Frame(plot),
                  Text(plot.x + plot.w / 2, bottom + 36, chart.x_label, "text-anchor=\"middle\""));

  std::vector<LegendEntry> legend;
  for (const Series& s : chart.series) {
    legend.push_back({s.name, s.color, s.dashed ? LegendEntry::kDashedLine : LegendEntry::kLine});
    if (s.points.empty()) continue;
    std::string points;
    for (const Point& p : s.points) {
      absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", X(p.x), ScaleY(plot, y_top, p.y)));
    }
    absl::StrAppend(&out, "<polyline points=\"", points, "\" fill=\"none\" ",
                    Stroke(s.color, s.dashed ? 1.5 : 2.5, s.dashed), "/>\n");
  }
  absl::StrAppend(&out, Legend(plot, legend, /*right=*/false));
  return out;
}

}  // namespace rockpool::chart
