// report.h's RenderSvg: the report mapped onto tools/chart's charts.
#include "tools/sst_replay/report.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/chart/chart.h"

namespace rockpool::replay {
namespace {

using chart::Box, chart::Text;

constexpr double kPanelHeight = 440;
constexpr char kStockColor[] = "#d62728";
constexpr char kPooledColor[] = "#1f77b4";

// "8 GiB" rather than "8.00 GiB" on axes.
std::string AxisBytes(double v) {
  return absl::StrReplaceAll(console::FormatBytes(v), {{".00 ", " "}, {".0 ", " "}});
}

// The first run of each strategy (the figures beside it are medians), its
// whole process solid and its codec libraries dashed.
std::string BytesChart(const ModeReport& m, const Box& plot) {
  chart::LineChart c{"bytes allocated, cumulative", m.x_label, AxisBytes, {}};
  for (const bool stock : {true, false}) {
    const std::vector<RunResult>& runs = stock ? m.stock : m.pooled;
    for (const bool codec : {false, true}) {
      c.series.push_back({absl::StrCat(stock ? "stock" : "pooled",
                                       codec ? ": codec libraries" : ": whole process"),
                          stock ? kStockColor : kPooledColor,
                          codec,
                          {}});
      for (const SeriesPoint& p : runs.empty() ? std::vector<SeriesPoint>() : runs[0].series) {
        c.series.back().points.push_back(
            {p.x, static_cast<double>(codec ? p.codec_bytes : p.process_bytes)});
      }
    }
  }
  return chart::DrawLineChart(c, plot);
}

// The main figures, pooled's median against stock's.
std::string FiguresChart(const ModeReport& m, const Box& plot) {
  chart::PercentBarChart c{
      "pooled as % of stock (median)", "stock", kStockColor, "pooled", kPooledColor, {}};
  static constexpr std::pair<const char*, const char*> kFigures[] = {
      {"codec_bytes", "codec bytes"},     {"codec_calls", "codec calls"},
      {"process_bytes", "process bytes"}, {"process_calls", "process calls"},
      {"peak_heap_bytes", "peak heap"},   {"peak_rss_bytes", "peak RSS"},
      {"minor_faults", "minor faults"},   {"cpu_ns", "CPU time"},
      {"wall_ns", "wall time"},
  };
  for (const auto& [key, label] : kFigures) {
    c.bars.push_back({label, Summarize(m.pooled, key).median, Summarize(m.stock, key).median});
  }
  return chart::DrawPercentBarChart(c, plot);
}

}  // namespace

std::string RenderSvg(const Report& report) {
  std::string body =
      Text(20, 30, "rockpool sst_replay: stock RocksDB vs pooled contexts", "class=\"t\"");
  if (report.modes.empty()) absl::StrAppend(&body, Text(20, 70, "nothing was replayed"));
  for (size_t i = 0; i < report.modes.size(); ++i) {
    const ModeReport& m = report.modes[i];
    const double top = 50 + kPanelHeight * static_cast<double>(i);
    absl::StrAppend(
        &body, Text(20, top + 22, absl::StrCat(m.mode, " mode"), "class=\"h\""),
        Text(20, top + 38, m.description),
        m.identical ? Text(20, top + 53, "outputs identical, byte for byte", "fill=\"#2a7d2a\"")
                    : Text(20, top + 53, absl::StrCat("OUTPUTS DIFFER: ", m.difference),
                           "fill=\"#d62728\""),
        BytesChart(m, Box{95, top + 90, 470, 250}), FiguresChart(m, Box{660, top + 90, 420, 250}));
  }
  return chart::SvgDocument(
      1100, 50 + kPanelHeight * static_cast<double>(std::max<size_t>(1, report.modes.size())),
      body);
}

}  // namespace rockpool::replay
