#include "tools/chart/bar_chart.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/chart/plot.h"

namespace rockpool::chart {
namespace {

std::string Fill(const std::string& color) {
  return absl::StrCat("fill=\"", EscapeXml(color), "\"");
}

// Two significant digits below 10% (0.52%, not 1%), whole percents above.
std::string PercentLabel(double pct) {
  return pct < 10 ? absl::StrFormat("%.2g%%", pct) : absl::StrFormat("%.0f%%", pct);
}

}  // namespace

double PercentOf(const Bar& bar) { return bar.reference > 0 ? bar.value / bar.reference * 100 : 0; }

std::string DrawPercentBarChart(const PercentBarChart& chart, const Box& plot) {
  double top = 100;
  for (const Bar& bar : chart.bars) top = std::max(top, PercentOf(bar));
  const double step = TickStep(top, 5, /*powers_of_two=*/false);
  top = AxisTop(top, step);
  auto Y = [&](double v) { return ScaleY(plot, top, v); };

  std::string out = Text(plot.x, plot.y - 12, chart.title, "class=\"h\"");
  absl::StrAppend(
      &out, HorizontalGrid(plot, top, step, [](double v) { return absl::StrFormat("%g%%", v); }));
  // Each category's group: a margin, the two bars side by side, a margin.
  const double group = plot.w / static_cast<double>(std::max<size_t>(1, chart.bars.size()));
  const double bar_w = group * 0.34;
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const double pct = PercentOf(chart.bars[i]);
    const double x = plot.x + group * static_cast<double>(i) + group * 0.14;
    // At least half a unit tall: a value of 0 still shows its bar.
    const double h = std::max(0.5, Y(0) - Y(pct));
    const double under = plot.y + plot.h + 14;
    absl::StrAppend(&out, Rect(Box{x, Y(100), bar_w, Y(0) - Y(100)}, Fill(chart.reference_color)),
                    Rect(Box{x + bar_w, Y(0) - h, bar_w, h}, Fill(chart.value_color)),
                    Text(x + bar_w * 1.5, Y(0) - h - 4, PercentLabel(pct),
                         "text-anchor=\"middle\" class=\"v\""),
                    Text(x + bar_w, under, chart.bars[i].label,
                         absl::StrFormat("text-anchor=\"end\" transform=\"rotate(-35 %.1f %.1f)\"",
                                         x + bar_w, under)));
  }
  absl::StrAppend(&out, Frame(plot),
                  Legend(plot,
                         {{absl::StrCat(chart.reference_name, " (= 100%)"), chart.reference_color,
                           LegendEntry::kBlock},
                          {chart.value_name, chart.value_color, LegendEntry::kBlock}},
                         /*right=*/true));
  return out;
}

}  // namespace rockpool::chart
