#include "tools/chart/plot.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace rockpool::chart {
namespace {

// Legend layout, in user units: the box's margin inside the plot and its
// padding, the row pitch, and the advance of a character of the 12 px
// font, a little over DejaVu Sans's mean so that labels fit their box.
constexpr double kLegendMargin = 6;
constexpr double kLegendPad = 6;
constexpr double kLegendRow = 17;
constexpr double kCharWidth = 6.6;

// Characters, not bytes: a UTF-8 label's continuation bytes take no room.
size_t Characters(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

double TickStep(double max, int intervals, bool powers_of_two) {
  if (!(max > 0)) return 1;
  const double raw = max / intervals;
  if (powers_of_two) return std::exp2(std::ceil(std::log2(raw)));
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double f : {1.0, 2.0, 5.0}) {
    if (f * magnitude >= raw) return f * magnitude;
  }
  return 10 * magnitude;
}

double AxisTop(double max, double step) { return std::max(step, std::ceil(max / step) * step); }

double ScaleY(const Box& plot, double top, double v) { return plot.y + plot.h - v / top * plot.h; }

std::string HorizontalGrid(const Box& plot, double top, double step,
                           const std::function<std::string(double)>& label) {
  std::string out;
  // Half a step of slack: the last line survives the sum's rounding.
  for (double v = 0; v <= top + step / 2; v += step) {
    const double y = ScaleY(plot, top, v);
    absl::StrAppend(&out, Line(plot.x, y, plot.x + plot.w, y, "class=\"grid\""),
                    Text(plot.x - 6, y + 4, label(v), "text-anchor=\"end\""));
  }
  return out;
}

std::string Frame(const Box& plot) { return Rect(plot, "class=\"frame\""); }

std::string Stroke(const std::string& color, double width, bool dashed) {
  return absl::StrCat("stroke=\"", EscapeXml(color), "\" stroke-width=\"", width, "\"",
                      dashed ? " stroke-dasharray=\"6 4\"" : "");
}

std::string Legend(const Box& plot, const std::vector<LegendEntry>& entries, bool right) {
  if (entries.empty()) return "";
  // Where a row's label starts, after its swatch: a line is wider than a block.
  auto label_x = [](const LegendEntry& e) { return e.swatch == LegendEntry::kBlock ? 20.0 : 32.0; };
  double width = 0;
  for (const LegendEntry& e : entries) {
    width = std::max(width, label_x(e) + kCharWidth * static_cast<double>(Characters(e.label)));
  }
  width += 2 * kLegendPad;
  const Box box{right ? plot.x + plot.w - kLegendMargin - width : plot.x + kLegendMargin,
                plot.y + 4, width, kLegendRow * static_cast<double>(entries.size()) + kLegendPad};
  std::string out = Rect(box, "class=\"legend\"");
  const double x = box.x + kLegendPad;
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    const double y = box.y + 10 + kLegendRow * static_cast<double>(i);
    if (e.swatch == LegendEntry::kBlock) {
      absl::StrAppend(
          &out, Rect(Box{x, y - 6, 14, 10}, absl::StrCat("fill=\"", EscapeXml(e.color), "\"")),
          Text(x + label_x(e), y + 3, e.label));
    } else {
      // Every line's swatch is as thick as the thickest line, so that a thin
      // line's colour and dashes still read.
      absl::StrAppend(
          &out, Line(x, y, x + 26, y, Stroke(e.color, 2.5, e.swatch == LegendEntry::kDashedLine)),
          Text(x + label_x(e), y + 4, e.label));
    }
  }
  return out;
}

}  // namespace rockpool::chart
