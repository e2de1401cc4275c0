#include "tools/sst_replay/svg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rockpool::replay {
namespace {

constexpr double kWidth = 1100;
constexpr double kPanelHeight = 440;
constexpr char kStockColor[] = "#d62728";
constexpr char kPooledColor[] = "#1f77b4";

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
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
  std::string s = FormatBytes(v);
  for (const char* zeros : {".00 ", ".0 "}) {
    const size_t at = s.find(zeros);
    if (at != std::string::npos) s.erase(at, std::string(zeros).size() - 1);
  }
  return s;
}

struct Box {
  double x, y, w, h;
};

std::string LineChart(const ModeReport& m, const Box& b) {
  std::string out;
  const std::vector<SeriesPoint> empty;
  const std::vector<SeriesPoint>& stock = m.stock.empty() ? empty : m.stock.front().series;
  const std::vector<SeriesPoint>& pooled = m.pooled.empty() ? empty : m.pooled.front().series;
  double max_x = 0, max_y = 0;
  for (const auto* series : {&stock, &pooled}) {
    for (const SeriesPoint& p : *series) {
      max_x = std::max(max_x, p.x);
      max_y = std::max(
          {max_y, static_cast<double>(p.process_bytes), static_cast<double>(p.codec_bytes)});
    }
  }
  const double x_step = NiceStep(max_x, 6);
  const double y_step = NiceByteStep(max_y, 5);
  const double x_max = std::max(x_step, std::ceil(max_x / x_step) * x_step);
  const double y_max = std::max(y_step, std::ceil(max_y / y_step) * y_step);
  auto X = [&](double v) { return b.x + v / x_max * b.w; };
  auto Y = [&](double v) { return b.y + b.h - v / y_max * b.h; };

  absl::StrAppend(&out, Text(b.x, b.y - 12, "bytes allocated, cumulative", "class=\"h\""));
  for (double v = 0; v <= y_max + y_step / 2; v += y_step) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                        b.x, Y(v), b.x + b.w, Y(v)));
    absl::StrAppend(&out, Text(b.x - 6, Y(v) + 4, AxisBytes(v), "text-anchor=\"end\""));
  }
  for (double v = 0; v <= x_max + x_step / 2; v += x_step) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
                        X(v), b.y + b.h, X(v), b.y + b.h + 4));
    absl::StrAppend(&out,
                    Text(X(v), b.y + b.h + 18, absl::StrFormat("%g", v), "text-anchor=\"middle\""));
  }
  absl::StrAppend(
      &out, absl::StrFormat(
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
                b.x, b.y, b.w, b.h));
  absl::StrAppend(&out, Text(b.x + b.w / 2, b.y + b.h + 36, m.x_label, "text-anchor=\"middle\""));

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
                  polyline(pooled, false, kPooledColor), polyline(pooled, true, kPooledColor));

  // Legend.
  const double lx = b.x + 12, ly = b.y + 14;
  const struct {
    const char* color;
    bool dashed;
    const char* label;
  } items[] = {{kStockColor, false, "stock: whole process"},
               {kStockColor, true, "stock: codec libraries"},
               {kPooledColor, false, "pooled: whole process"},
               {kPooledColor, true, "pooled: codec libraries"}};
  absl::StrAppend(
      &out, absl::StrFormat(
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"190\" height=\"74\" class=\"legend\"/>\n",
                lx - 6, ly - 10));
  for (int i = 0; i < 4; ++i) {
    const double y = ly + i * 17;
    absl::StrAppend(
        &out, absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                              "stroke-width=\"2.5\"%s/>\n",
                              lx, y, lx + 26, y, items[i].color,
                              items[i].dashed ? " stroke-dasharray=\"6 4\"" : ""));
    absl::StrAppend(&out, Text(lx + 32, y + 4, items[i].label));
  }
  return out;
}

std::string BarChart(const ModeReport& m, const Box& b) {
  struct Bar {
    const char* key;
    const char* label;
    Unit unit;
  };
  const Bar bars[] = {
      {"codec_bytes", "codec bytes", Unit::kBytes},
      {"codec_calls", "codec calls", Unit::kCount},
      {"process_bytes", "process bytes", Unit::kBytes},
      {"process_calls", "process calls", Unit::kCount},
      {"peak_heap_bytes", "peak heap", Unit::kBytes},
      {"peak_rss_bytes", "peak RSS", Unit::kBytes},
      {"minor_faults", "minor faults", Unit::kCount},
      {"cpu_ns", "CPU time", Unit::kNanos},
      {"wall_ns", "wall time", Unit::kNanos},
  };
  const size_t n = sizeof(bars) / sizeof(bars[0]);
  std::string out;
  absl::StrAppend(&out, Text(b.x, b.y - 12, "pooled as % of stock (median)", "class=\"h\""));
  double top = 100;
  std::vector<double> pct(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const double s = Summarize(m.stock, bars[i].key).median;
    const double p = Summarize(m.pooled, bars[i].key).median;
    pct[i] = s > 0 ? p / s * 100 : 0;
    top = std::max(top, pct[i]);
  }
  const double y_step = NiceStep(top, 5);
  const double y_max = std::ceil(top / y_step) * y_step;
  auto Y = [&](double v) { return b.y + b.h - v / y_max * b.h; };
  for (double v = 0; v <= y_max + y_step / 2; v += y_step) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                        b.x, Y(v), b.x + b.w, Y(v)));
    absl::StrAppend(&out,
                    Text(b.x - 6, Y(v) + 4, absl::StrFormat("%g%%", v), "text-anchor=\"end\""));
  }
  const double group = b.w / static_cast<double>(n);
  const double bar_w = group * 0.34;
  for (size_t i = 0; i < n; ++i) {
    const double gx = b.x + group * static_cast<double>(i) + group * 0.14;
    absl::StrAppend(
        &out, absl::StrFormat(
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", gx,
                  Y(100), bar_w, Y(0) - Y(100), kStockColor));
    const double h = std::max(0.5, Y(0) - Y(pct[i]));
    absl::StrAppend(
        &out, absl::StrFormat(
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                  gx + bar_w, Y(0) - h, bar_w, h, kPooledColor));
    const std::string label =
        pct[i] < 10 ? absl::StrFormat("%.2g%%", pct[i]) : absl::StrFormat("%.0f%%", pct[i]);
    absl::StrAppend(
        &out, Text(gx + bar_w * 1.5, Y(0) - h - 4, label, "text-anchor=\"middle\" class=\"v\""));
    absl::StrAppend(&out, absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                                          "transform=\"rotate(-35 %.1f %.1f)\">%s</text>\n",
                                          gx + bar_w, b.y + b.h + 14, gx + bar_w, b.y + b.h + 14,
                                          Escape(bars[i].label)));
  }
  absl::StrAppend(
      &out, absl::StrFormat(
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
                b.x, b.y, b.w, b.h));
  // Legend.
  const double lx = b.x + b.w - 150, ly = b.y + 14;
  absl::StrAppend(
      &out, absl::StrFormat(
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"142\" height=\"40\" class=\"legend\"/>\n",
                lx - 6, ly - 10));
  absl::StrAppend(
      &out,
      absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", lx,
                      ly - 6, kStockColor));
  absl::StrAppend(&out, Text(lx + 20, ly + 3, "stock (= 100%)"));
  absl::StrAppend(
      &out,
      absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", lx,
                      ly + 11, kPooledColor));
  absl::StrAppend(&out, Text(lx + 20, ly + 20, "pooled"));
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
