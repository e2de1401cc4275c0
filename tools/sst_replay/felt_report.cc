// report.h's felt section: what users feel, per allocator.
#include "tools/sst_replay/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/console/display_columns.h"

namespace rockpool::replay {
namespace {

using console::PadColumns;
using console::Unit;
// A fact every run of an allocator reported (the first run's).
std::string Fact(const AllocatorRuns& a, const std::string& key) {
  for (const auto* runs : {&a.stock, &a.pooled}) {
    for (const RunResult& r : *runs) {
      auto it = r.facts.find(key);
      if (it != r.facts.end()) return it->second;
    }
  }
  return "";
}

std::string ActiveText(const AllocatorRuns& a) {
  const std::string name = Fact(a, "allocator");
  if (name.empty()) return a.name;
  const std::string version = Fact(a, "allocator_version");
  return absl::StrCat(name, version.empty() ? "" : " ", version, " (", Fact(a, "allocator_object"),
                      ")");
}

int MaxRuns(const ModeReport& m) {
  size_t n = 0;
  for (const AllocatorRuns& a : m.allocators) n = std::max({n, a.stock.size(), a.pooled.size()});
  return static_cast<int>(n);
}

// The JSON's verdict (lower is better for every felt metric).
const char* VerdictName(process::Shift shift) {
  if (shift == process::Shift::kNone) return "no felt difference";
  return shift == process::Shift::kLower ? "better" : "worse";
}

}  // namespace

const std::vector<FeltMetric>& FeltMetrics() {
  static const std::vector<FeltMetric> metrics = {
      {"felt_wall_ns", "wall time", Unit::kNanos, "wall", "pooled faster", "pooled slower"},
      {"felt_cpu_ns", "CPU time (user+sys)", Unit::kNanos, "CPU", "pooled uses less CPU",
       "pooled uses more CPU"},
      {"felt_minor_faults", "minor page faults", Unit::kCount, "minor faults", "pooled faults less",
       "pooled faults more"},
      {"felt_peak_rss_bytes", "peak RSS", Unit::kBytes, "peak RSS", "pooled smaller",
       "pooled larger"},
  };
  return metrics;
}

std::string VerdictText(const process::RunsComparison& c, const FeltMetric& metric, bool compact) {
  if (c.shift == process::Shift::kNone) {
    if (!c.tested) {
      return absl::StrFormat("no felt difference (n=%d+%d: too few runs to test)",
                             c.before.runs.size(), c.after.runs.size());
    }
    // Below 4 runs a side, the U test cannot reach p <= 0.05 at all.
    const bool too_few = std::min(c.before.runs.size(), c.after.runs.size()) < 4;
    return absl::StrFormat("no felt difference (p=%.3f%s)", c.p,
                           too_few && !compact ? ", --repeat=4 or more can show one" : "");
  }
  return absl::StrFormat("%s: %+.1f%%%s%s (p=%.3f)",
                         c.shift == process::Shift::kLower ? metric.better : metric.worse,
                         c.delta_percent, compact ? "" : " ", compact ? "" : metric.noun, c.p);
}

std::string FormatFeltTable(const ModeReport& m) {
  if (m.allocators.empty()) return "";
  const bool several = m.allocators.size() > 1;
  std::string out = absl::StrCat(
      "felt, each child process whole (wall: start to exit; CPU and minor faults: wait4; peak "
      "RSS: its VmHWM); median of ",
      MaxRuns(m), " runs", several ? " per strategy and allocator" : "",
      "; a verdict only where the U test says p <= 0.05\n");
  // Rows of cells: the allocators' names (several only), the column names,
  // one row per metric; each allocator has a stock, a pooled and a verdict
  // column.
  std::vector<std::vector<std::string>> rows(several ? 2 : 1, {""});
  for (const AllocatorRuns& a : m.allocators) {
    if (several) rows.front().insert(rows.front().end(), {a.name, "", ""});
    rows.back().insert(rows.back().end(), {"stock", "pooled", "verdict"});
  }
  for (const FeltMetric& metric : FeltMetrics()) {
    rows.emplace_back(1, metric.label);
    for (const AllocatorRuns& a : m.allocators) {
      const process::RunsComparison c = CompareMetric(a.stock, a.pooled, metric.key);
      rows.back().insert(rows.back().end(), {process::FormatSummary(c.before, metric.unit),
                                             process::FormatSummary(c.after, metric.unit),
                                             VerdictText(c, metric, several)});
    }
  }
  // Widths from the cells (the allocator names span their group).
  std::vector<size_t> width(rows.back().size(), 0);
  width[0] = 28;  // the labels' column, at least
  for (size_t r = several ? 1 : 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < width.size(); ++c) {
      width[c] = std::max(width[c], console::DisplayColumns(rows[r][c]) + 3);
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const bool name_row = several && r == 0 && c > 0;
      if (name_row && c % 3 != 1) continue;
      line += PadColumns(rows[r][c], name_row ? width[c] + width[c + 1] + width[c + 2] : width[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
  }
  std::vector<std::string> active;
  for (const AllocatorRuns& a : m.allocators) {
    active.push_back(several ? absl::StrCat(a.name, " = ", ActiveText(a)) : ActiveText(a));
  }
  absl::StrAppend(&out, several ? "allocators: " : "allocator: ", absl::StrJoin(active, "; "),
                  ", checked in every child\n");
  return out;
}

json::Value AllocatorsJson(const ModeReport& m) {
  using json::Value;
  Value::Array allocators;
  for (const AllocatorRuns& a : m.allocators) {
    Value::Members felt;
    for (const FeltMetric& metric : FeltMetrics()) {
      const process::RunsComparison c = CompareMetric(a.stock, a.pooled, metric.key);
      felt.emplace_back(
          metric.key, Value::MakeObject({{"label", Value::String(metric.label)},
                                         {"stock", process::SummaryJson(c.before)},
                                         {"pooled", process::SummaryJson(c.after)},
                                         {"p", c.tested ? process::JsonNumber(c.p) : Value()},
                                         {"delta_percent", process::JsonNumber(c.delta_percent)},
                                         {"verdict", Value::String(VerdictName(c.shift))},
                                         {"text", Value::String(VerdictText(c, metric, false))}}));
    }
    const Value active =
        Value::MakeObject({{"name", Value::String(Fact(a, "allocator"))},
                           {"version", Value::String(Fact(a, "allocator_version"))},
                           {"object", Value::String(Fact(a, "allocator_object"))},
                           {"evidence", Value::String(Fact(a, "allocator_evidence"))}});
    allocators.push_back(Value::MakeObject({{"name", Value::String(a.name)},
                                            {"preload", Value::String(a.preload)},
                                            {"active", active},
                                            {"felt", Value::MakeObject(std::move(felt))},
                                            {"metrics", MetricsJson(a.stock, a.pooled)}}));
  }
  return Value::MakeArray(std::move(allocators));
}

}  // namespace rockpool::replay
