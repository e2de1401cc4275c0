#include "tools/sst_replay/svg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace rockpool::replay {
namespace {

constexpr double kWidth = 1100;
constexpr double kPanelHeight = 440;
constexpr char kStockColor[] = "#d62728";
constexpr char kPooledColor[] = "#1f77b4";

std::string Escape(std::string_view s) {
  return absl::StrReplaceAll(absl::string_view(s.data(), s.size()),
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

std::string Text(double x, double y, std::string_view s, std::string_view attrs = "") {
  return absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>\n", x, y, std::string(attrs),
                         Escape(s));
}

// A "nice" step (1, 2 or 5 x 10^k) giving about `ticks` intervals up to max.
double NiceStep(double max, int ticks) {
  if (max <= 0) return 1;
  const double raw = max / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    if (f * mag >= raw) return f * mag;
  }
  return 10 * mag;
}

// Steps in powers of two for byte axes, so labels read 256 MiB, 512 MiB...
double NiceByteStep(double max, int ticks) {
  if (max <= 0) return 1;
  const double raw = max / ticks;
  double step = 1;
  while (step < raw) step *= 2;
  return step;
}

// "8 GiB" rather than "8.00 GiB" on axes.
std::string AxisBytes(double v) {
  std::string s = console::FormatBytes(v);
  for (const char* zeros : {".00 ", ".0 "}) {
    const size_t at = s.find(zeros);
    if (at != std::string::npos) s.erase(at, std::string(zeros).size() - 1);
  }
  return s;
}

struct Box {
  double x, y, w, h;
};

std::string Line(double x1, double y1, double x2, double y2, std::string_view attrs) {
  return absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1, x2,
                         y2, std::string(attrs));
}

// `size`: the width and height attributes (Size() for computed ones).
std::string Rect(double x, double y, std::string_view size, std::string_view attrs) {
  return absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" %s %s/>\n", x, y, std::string(size),
                         std::string(attrs));
}

std::string Size(double w, double h) {
  return absl::StrFormat("width=\"%.1f\" height=\"%.1f\"", w, h);
}

std::string Fill(const char* color) { return absl::StrCat("fill=\"", color, "\""); }

double ScaleY(const Box& b, double max, double v) { return b.y + b.h - v / max * b.h; }

// Horizontal grid lines with their labels, every `step` up to `max`.
std::string Grid(const Box& b, double max, double step, std::string (*label)(double)) {
  std::string out;
  for (double v = 0; v <= max + step / 2; v += step) {
    const double y = ScaleY(b, max, v);
    absl::StrAppend(&out, Line(b.x, y, b.x + b.w, y, "class=\"grid\""),
                    Text(b.x - 6, y + 4, label(v), "text-anchor=\"end\""));
  }
  return out;
}

std::string Frame(const Box& b) { return Rect(b.x, b.y, Size(b.w, b.h), "class=\"frame\""); }

const std::vector<SeriesPoint>& FirstSeries(const std::vector<RunResult>& runs) {
  static const std::vector<SeriesPoint>* const kEmpty = new std::vector<SeriesPoint>();
  return runs.empty() ? *kEmpty : runs.front().series;
}

// The line chart's scale: nice steps covering every point of both series.
struct LineScale {
  double x_step, y_step, x_max, y_max;
};
LineScale ScaleFor(const std::vector<SeriesPoint>& stock, const std::vector<SeriesPoint>& pooled) {
  double max_x = 0, max_y = 0;
  for (const auto* series : {&stock, &pooled}) {
    for (const SeriesPoint& p : *series) {
      max_x = std::max(max_x, p.x);
      max_y = std::max(
          {max_y, static_cast<double>(p.process_bytes), static_cast<double>(p.codec_bytes)});
    }
  }
  LineScale s;
  s.x_step = NiceStep(max_x, 6);
  s.y_step = NiceByteStep(max_y, 5);
  s.x_max = std::max(s.x_step, std::ceil(max_x / s.x_step) * s.x_step);
  s.y_max = std::max(s.y_step, std::ceil(max_y / s.y_step) * s.y_step);
  return s;
}

// Four entries: each strategy's whole process (solid) and codec libraries (dashed).
std::string LineLegend(const Box& b) {
  const double lx = b.x + 12, ly = b.y + 14;
  const struct {
    const char* color;
    bool dashed;
    const char* label;
  } items[] = {{kStockColor, false, "stock: whole process"},
               {kStockColor, true, "stock: codec libraries"},
               {kPooledColor, false, "pooled: whole process"},
               {kPooledColor, true, "pooled: codec libraries"}};
  std::string out = Rect(lx - 6, ly - 10, "width=\"190\" height=\"74\"", "class=\"legend\"");
  for (int i = 0; i < 4; ++i) {
    const double y = ly + i * 17;
    absl::StrAppend(&out,
                    Line(lx, y, lx + 26, y,
                         absl::StrCat("stroke=\"", items[i].color, "\" stroke-width=\"2.5\"",
                                      items[i].dashed ? " stroke-dasharray=\"6 4\"" : "")),
                    Text(lx + 32, y + 4, items[i].label));
  }
  return out;
}

// Cumulative bytes allocated over the replay: the first stock and pooled
// runs, whole process and codec libraries.
std::string LineChart(const ModeReport& m, const Box& b) {
  const std::vector<SeriesPoint>& stock = FirstSeries(m.stock);
  const std::vector<SeriesPoint>& pooled = FirstSeries(m.pooled);
  const LineScale s = ScaleFor(stock, pooled);
  auto X = [&](double v) { return b.x + v / s.x_max * b.w; };
  auto Y = [&](double v) { return ScaleY(b, s.y_max, v); };
  std::string out = Text(b.x, b.y - 12, "bytes allocated, cumulative", "class=\"h\"");
  absl::StrAppend(&out, Grid(b, s.y_max, s.y_step, AxisBytes));
  for (double v = 0; v <= s.x_max + s.x_step / 2; v += s.x_step) {
    absl::StrAppend(&out, Line(X(v), b.y + b.h, X(v), b.y + b.h + 4, "class=\"axis\""),
                    Text(X(v), b.y + b.h + 18, absl::StrFormat("%g", v), "text-anchor=\"middle\""));
  }
  absl::StrAppend(&out, Frame(b),
                  Text(b.x + b.w / 2, b.y + b.h + 36, m.x_label, "text-anchor=\"middle\""));
  auto polyline = [&](const std::vector<SeriesPoint>& pts, bool codec, const char* color) {
    if (pts.empty()) return std::string();
    std::string points;
    for (const SeriesPoint& p : pts) {
      absl::StrAppend(
          &points,
          absl::StrFormat("%.1f,%.1f ", X(p.x),
                          Y(static_cast<double>(codec ? p.codec_bytes : p.process_bytes))));
    }
    return absl::StrFormat(
        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n", points,
        color, codec ? "1.5" : "2.5", codec ? " stroke-dasharray=\"6 4\"" : "");
  };
  absl::StrAppend(&out, polyline(stock, false, kStockColor), polyline(stock, true, kStockColor),
                  polyline(pooled, false, kPooledColor), polyline(pooled, true, kPooledColor),
                  LineLegend(b));
  return out;
}

struct Bar {
  const char* key;
  const char* label;
};
constexpr Bar kBars[] = {
    {"codec_bytes", "codec bytes"},     {"codec_calls", "codec calls"},
    {"process_bytes", "process bytes"}, {"process_calls", "process calls"},
    {"peak_heap_bytes", "peak heap"},   {"peak_rss_bytes", "peak RSS"},
    {"minor_faults", "minor faults"},   {"cpu_ns", "CPU time"},
    {"wall_ns", "wall time"},
};
constexpr size_t kBarCount = sizeof(kBars) / sizeof(kBars[0]);

std::string Percent(double v) { return absl::StrFormat("%g%%", v); }

// One bar pair: stock at 100%, pooled at `pct`, its value and its label.
std::string BarPair(const Box& b, double y_max, size_t i, double pct) {
  auto Y = [&](double v) { return ScaleY(b, y_max, v); };
  const double group = b.w / static_cast<double>(kBarCount);
  const double bar_w = group * 0.34;
  const double gx = b.x + group * static_cast<double>(i) + group * 0.14;
  const double h = std::max(0.5, Y(0) - Y(pct));
  const std::string label =
      pct < 10 ? absl::StrFormat("%.2g%%", pct) : absl::StrFormat("%.0f%%", pct);
  return absl::StrCat(
      Rect(gx, Y(100), Size(bar_w, Y(0) - Y(100)), Fill(kStockColor)),
      Rect(gx + bar_w, Y(0) - h, Size(bar_w, h), Fill(kPooledColor)),
      Text(gx + bar_w * 1.5, Y(0) - h - 4, label, "text-anchor=\"middle\" class=\"v\""),
      absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                      "transform=\"rotate(-35 %.1f %.1f)\">%s</text>\n",
                      gx + bar_w, b.y + b.h + 14, gx + bar_w, b.y + b.h + 14,
                      Escape(kBars[i].label)));
}

std::string BarLegend(const Box& b) {
  const double lx = b.x + b.w - 150, ly = b.y + 14;
  return absl::StrCat(Rect(lx - 6, ly - 10, "width=\"142\" height=\"40\"", "class=\"legend\""),
                      Rect(lx, ly - 6, "width=\"14\" height=\"10\"", Fill(kStockColor)),
                      Text(lx + 20, ly + 3, "stock (= 100%)"),
                      Rect(lx, ly + 11, "width=\"14\" height=\"10\"", Fill(kPooledColor)),
                      Text(lx + 20, ly + 20, "pooled"));
}

// The main figures, pooled's median as a percentage of stock's.
std::string BarChart(const ModeReport& m, const Box& b) {
  std::string out = Text(b.x, b.y - 12, "pooled as % of stock (median)", "class=\"h\"");
  double top = 100;
  std::vector<double> pct(kBarCount, 0);
  for (size_t i = 0; i < kBarCount; ++i) {
    const double s = Summarize(m.stock, kBars[i].key).median;
    const double p = Summarize(m.pooled, kBars[i].key).median;
    pct[i] = s > 0 ? p / s * 100 : 0;
    top = std::max(top, pct[i]);
  }
  const double y_step = NiceStep(top, 5);
  const double y_max = std::ceil(top / y_step) * y_step;
  absl::StrAppend(&out, Grid(b, y_max, y_step, Percent));
  for (size_t i = 0; i < kBarCount; ++i) absl::StrAppend(&out, BarPair(b, y_max, i, pct[i]));
  absl::StrAppend(&out, Frame(b), BarLegend(b));
  return out;
}

}  // namespace

std::string RenderSvg(const Report& report) {
  const double height =
      50 + kPanelHeight * static_cast<double>(std::max<size_t>(1, report.modes.size()));
  std::string out = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
      "font-size=\"12\">\n",
      kWidth, height, kWidth, height);
  absl::StrAppend(&out,
                  "<style>.h{font-size:14px;font-weight:bold}.t{font-size:17px;font-weight:bold}"
                  ".v{font-size:11px}.grid{stroke:#ddd;stroke-width:1}.axis{stroke:#444}"
                  ".frame{fill:none;stroke:#444}.legend{fill:#fff;fill-opacity:0.85;stroke:#bbb}"
                  "</style>\n");
  absl::StrAppend(&out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
  absl::StrAppend(
      &out, Text(20, 30, "rockpool sst_replay: stock RocksDB vs pooled contexts", "class=\"t\""));
  if (report.modes.empty()) {
    absl::StrAppend(&out, Text(20, 70, "nothing was replayed"));
  }
  for (size_t i = 0; i < report.modes.size(); ++i) {
    const ModeReport& m = report.modes[i];
    const double top = 50 + kPanelHeight * static_cast<double>(i);
    absl::StrAppend(&out, Text(20, top + 22, absl::StrCat(m.mode, " mode"), "class=\"h\""));
    absl::StrAppend(&out, Text(20, top + 38, m.description));
    absl::StrAppend(&out,
                    m.identical
                        ? Text(20, top + 53, "outputs identical, byte for byte", "fill=\"#2a7d2a\"")
                        : Text(20, top + 53, absl::StrCat("OUTPUTS DIFFER: ", m.difference),
                               "fill=\"#d62728\""));
    absl::StrAppend(&out, LineChart(m, Box{95, top + 90, 470, 250}));
    absl::StrAppend(&out, BarChart(m, Box{660, top + 90, 420, 250}));
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace rockpool::replay
