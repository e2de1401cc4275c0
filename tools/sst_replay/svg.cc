#include "tools/sst_replay/svg.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/chart/bar_chart.h"
#include "tools/chart/line_chart.h"
#include "tools/chart/svg.h"

namespace rockpool::replay {
namespace {

using chart::Box;
using chart::Text;

constexpr double kWidth = 1100;
constexpr double kPanelHeight = 440;
constexpr char kStockColor[] = "#d62728";
constexpr char kPooledColor[] = "#1f77b4";

// "8 GiB" rather than "8.00 GiB" on axes.
std::string AxisBytes(double v) {
  std::string s = FormatBytes(v);
  for (const char* zeros : {".00 ", ".0 "}) {
    const size_t at = s.find(zeros);
    if (at != std::string::npos) s.erase(at, std::string(zeros).size() - 1);
  }
  return s;
}

// The first run's series, whole process or codec libraries: the chart
// shows one run of each strategy, the figures on the right are medians.
chart::Series SeriesOf(const std::vector<RunResult>& runs, bool codec, const char* strategy,
                       const char* color) {
  chart::Series s{
      absl::StrCat(strategy, codec ? ": codec libraries" : ": whole process"), color, codec, {}};
  if (runs.empty()) return s;
  for (const SeriesPoint& p : runs.front().series) {
    s.points.push_back({p.x, static_cast<double>(codec ? p.codec_bytes : p.process_bytes)});
  }
  return s;
}

std::string BytesChart(const ModeReport& m, const Box& plot) {
  chart::LineChart c;
  c.title = "bytes allocated, cumulative";
  c.x_label = m.x_label;
  c.x_ticks.intervals = 6;
  c.y_ticks = {5, /*powers_of_two=*/true, AxisBytes};
  for (const bool codec : {false, true}) {
    c.series.push_back(SeriesOf(m.stock, codec, "stock", kStockColor));
  }
  for (const bool codec : {false, true}) {
    c.series.push_back(SeriesOf(m.pooled, codec, "pooled", kPooledColor));
  }
  return chart::DrawLineChart(c, plot);
}

// The main figures, pooled's median against stock's.
std::string FiguresChart(const ModeReport& m, const Box& plot) {
  static constexpr struct {
    const char* key;
    const char* label;
  } kFigures[] = {
      {"codec_bytes", "codec bytes"},     {"codec_calls", "codec calls"},
      {"process_bytes", "process bytes"}, {"process_calls", "process calls"},
      {"peak_heap_bytes", "peak heap"},   {"peak_rss_bytes", "peak RSS"},
      {"minor_faults", "minor faults"},   {"cpu_ns", "CPU time"},
      {"wall_ns", "wall time"},
  };
  chart::PercentBarChart c{
      "pooled as % of stock (median)", "stock", kStockColor, "pooled", kPooledColor, {}};
  for (const auto& f : kFigures) {
    c.bars.push_back(
        {f.label, Summarize(m.pooled, f.key).median, Summarize(m.stock, f.key).median});
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
  const double height =
      50 + kPanelHeight * static_cast<double>(std::max<size_t>(1, report.modes.size()));
  return chart::SvgDocument(kWidth, height, body);
}

}  // namespace rockpool::replay
