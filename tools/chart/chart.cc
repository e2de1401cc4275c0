#include "tools/chart/chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace rockpool::chart {
namespace {

std::string Escape(absl::string_view s) {
  std::string out =
      absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
  // A parser rejects the whole document over one such byte (a file name
  // can carry any); the label stays readable without it.
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
  }
  return out;
}

std::string Line(double x1, double y1, double x2, double y2, absl::string_view attrs) {
  return absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1, x2,
                         y2, attrs);
}

std::string Rect(const Box& b, absl::string_view attrs) {
  return absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n", b.x,
                         b.y, b.w, b.h, attrs);
}

std::string Fill(absl::string_view color) { return absl::StrCat("fill=\"", Escape(color), "\""); }

std::string Stroke(absl::string_view color, double width, bool dashed) {
  return absl::StrFormat("stroke=\"%s\" stroke-width=\"%g\"%s", Escape(color), width,
                         dashed ? " stroke-dasharray=\"6 4\"" : "");
}

std::string Plain(double v) { return absl::StrCat(v); }

// An axis from 0: its step, about `intervals` of them to `max`, 1, 2 or
// 5 x 10^k (or 2^k), and its top, a whole step at or above `max`.
struct Axis {
  double step;
  double top;
};

Axis AxisTo(double max, int intervals, bool powers_of_two) {
  const double raw = max > 0 ? max / intervals : 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = powers_of_two ? std::exp2(std::ceil(std::log2(raw))) : 10 * magnitude;
  for (const double f : {5.0, 2.0, 1.0}) {
    if (!powers_of_two && f * magnitude >= raw) step = f * magnitude;
  }
  return {step, std::max(step, std::ceil(max / step) * step)};
}

double ScaleY(const Box& plot, const Axis& axis, double v) {
  return plot.y + plot.h - v / axis.top * plot.h;
}

// The title above the plot and its grid lines, labelled left of it.
std::string TitleAndGrid(const Box& plot, absl::string_view title, const Axis& axis,
                         std::string (*label)(double)) {
  std::string out = Text(plot.x, plot.y - 12, title, "class=\"h\"");
  // Half a step of slack: the last line survives the sum's rounding.
  for (double v = 0; v <= axis.top + axis.step / 2; v += axis.step) {
    const double y = ScaleY(plot, axis, v);
    absl::StrAppend(&out, Line(plot.x, y, plot.x + plot.w, y, "class=\"grid\""),
                    Text(plot.x - 6, y + 4, label(v), "text-anchor=\"end\""));
  }
  return out;
}

// A legend box `width` wide at (x, y): per series a block or its line (as
// thick as the thickest, so a thin line's colour and dashes read), its name.
std::string Legend(double x, double y, double width, const std::vector<Series>& keys, bool blocks) {
  std::string out =
      Rect({x, y, width, 17 * static_cast<double>(keys.size()) + 6}, "class=\"legend\"");
  for (size_t i = 0; i < keys.size(); ++i) {
    const double row = y + 10 + 17 * static_cast<double>(i);
    absl::StrAppend(&out,
                    blocks
                        ? Rect({x + 6, row - 6, 14, 10}, Fill(keys[i].color))
                        : Line(x + 6, row, x + 32, row, Stroke(keys[i].color, 2.5, keys[i].dashed)),
                    Text(x + (blocks ? 26 : 38), row + (blocks ? 3 : 4), keys[i].name));
  }
  return out;
}

}  // namespace

std::string Text(double x, double y, absl::string_view text, absl::string_view attrs) {
  return absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\"%s%s>%s</text>\n", x, y,
                         attrs.empty() ? "" : " ", attrs, Escape(text));
}

std::string SvgDocument(double width, double height, absl::string_view body) {
  return absl::StrCat(
      absl::StrFormat(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
          width, height, width, height),
      "<style>.h{font-size:14px;font-weight:bold}.t{font-size:17px;font-weight:bold}"
      ".v{font-size:11px}.grid{stroke:#ddd;stroke-width:1}.axis{stroke:#444}"
      ".frame{fill:none;stroke:#444}.legend{fill:#fff;fill-opacity:0.85;stroke:#bbb}</style>\n",
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", body, "</svg>\n");
}

std::string DrawLineChart(const LineChart& chart, const Box& plot) {
  double max_x = 0, max_y = 0;
  for (const Series& s : chart.series) {
    for (const Point& p : s.points) {
      max_x = std::max(max_x, p.x);
      max_y = std::max(max_y, p.y);
    }
  }
  const Axis x = AxisTo(max_x, 6, false);
  const Axis y = AxisTo(max_y, 5, chart.y_bytes != nullptr);
  auto X = [&](double v) { return plot.x + v / x.top * plot.w; };
  const double bottom = plot.y + plot.h;
  std::string out = TitleAndGrid(plot, chart.title, y, chart.y_bytes ? chart.y_bytes : Plain);
  for (double v = 0; v <= x.top + x.step / 2; v += x.step) {
    absl::StrAppend(&out, Line(X(v), bottom, X(v), bottom + 4, "class=\"axis\""),
                    Text(X(v), bottom + 18, Plain(v), "text-anchor=\"middle\""));
  }
  absl::StrAppend(&out, Rect(plot, "class=\"frame\""),
                  Text(plot.x + plot.w / 2, bottom + 36, chart.x_label, "text-anchor=\"middle\""));
  for (const Series& s : chart.series) {
    if (s.points.empty()) continue;
    std::string points;
    for (const Point& p : s.points) {
      absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", X(p.x), ScaleY(plot, y, p.y)));
    }
    absl::StrAppend(&out, "<polyline points=\"", points, "\" fill=\"none\" ",
                    Stroke(s.color, s.dashed ? 1.5 : 2.5, s.dashed), "/>\n");
  }
  return out + Legend(plot.x + 6, plot.y + 4, 190, chart.series, /*blocks=*/false);
}

std::string DrawPercentBarChart(const PercentBarChart& chart, const Box& plot) {
  std::vector<double> pcts;
  double max = 100;
  for (const Bar& bar : chart.bars) {
    pcts.push_back(bar.reference > 0 ? bar.value / bar.reference * 100 : 0);
    max = std::max(max, pcts.back());
  }
  const Axis axis = AxisTo(max, 5, false);
  auto Y = [&](double v) { return ScaleY(plot, axis, v); };
  std::string out =
      TitleAndGrid(plot, chart.title, axis, [](double v) { return absl::StrFormat("%g%%", v); });
  for (size_t i = 0; i < pcts.size(); ++i) {
    // Each bar's group: a margin, the two bars side by side, a margin.
    const double group = plot.w / static_cast<double>(pcts.size());
    const double w = group * 0.34;
    const double x = plot.x + group * static_cast<double>(i) + group * 0.14;
    const double h = std::max(0.5, Y(0) - Y(pcts[i]));  // a value of 0 still shows
    const double under = plot.y + plot.h + 14;
    absl::StrAppend(
        &out, Rect({x, Y(100), w, Y(0) - Y(100)}, Fill(chart.reference_color)),
        Rect({x + w, Y(0) - h, w, h}, Fill(chart.value_color)),
        Text(x + w * 1.5, Y(0) - h - 4,
             pcts[i] < 10 ? absl::StrFormat("%.2g%%", pcts[i]) : absl::StrFormat("%.0f%%", pcts[i]),
             "text-anchor=\"middle\" class=\"v\""),
        Text(x + w, under, chart.bars[i].label,
             absl::StrFormat("text-anchor=\"end\" transform=\"rotate(-35 %.1f %.1f)\"", x + w,
                             under)));
  }
  absl::StrAppend(&out, Rect(plot, "class=\"frame\""));
  return out +
         Legend(
             plot.x + plot.w - 156, plot.y + 4, 142,
             {{absl::StrCat(chart.reference_name, " (= 100%)"), chart.reference_color, false, {}},
              {chart.value_name, chart.value_color, false, {}}},
             /*blocks=*/true);
}

}  // namespace rockpool::chart
