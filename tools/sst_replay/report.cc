#include "tools/sst_replay/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/console/display_columns.h"
#include "tools/json/json_string.h"
#include "tools/sst_replay/felt_report.h"

namespace rockpool::replay {
namespace {

using console::FormatBytes;
using console::FormatCount;
using console::PadColumns;
using console::Unit;
using json::JsonString;

// The JSON names of the units, indexed by Unit: in its order, which
// tools/console/units.h keeps for this table.
constexpr const char* kUnitNames[] = {"bytes", "count", "ns", "MB/s", "ratio"};
static_assert(std::size(kUnitNames) == static_cast<size_t>(Unit::kRatio) + 1,
              "a name for each Unit");

Unit GuessUnit(const std::string& key) {
  auto ends_with = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(),
                                                      suffix.data(), suffix.size()) == 0;
  };
  if (ends_with("_ns")) return Unit::kNanos;
  if (ends_with("bytes") || ends_with("_bytes_end")) return Unit::kBytes;
  return Unit::kCount;
}

// ["a", "b"]
std::string JsonStrings(const std::vector<std::string>& strings) {
  std::vector<std::string> quoted;
  for (const std::string& s : strings) quoted.push_back(JsonString(s));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

// Percentage change from stock to pooled, as text. Noisy (timing-like)
// metrics get benchstat's treatment: "~" unless the U test says p <= 0.05.
std::string Delta(const process::RunsComparison& c, bool noisy) {
  const Summary& a = c.before;
  const Summary& b = c.after;
  std::string test;
  if (noisy && c.tested) {
    test = absl::StrFormat(" (p=%.3f n=%d+%d)", c.p, a.runs.size(), b.runs.size());
    if (c.shift == process::Shift::kNone) return "~" + test;
  } else if (noisy) {
    test = " (n=1)";
  }
  if (a.median == 0 && b.median == 0) return "0%";
  if (a.median == 0) return "+inf";
  const double pct = c.delta_percent;
  std::string s = std::fabs(pct) >= 99.95 && std::fabs(pct) < 100 ? absl::StrFormat("%+.3f%%", pct)
                                                                  : absl::StrFormat("%+.2f%%", pct);
  auto factor = [](double f) {
    if (f < 10) return absl::StrFormat("%.1f", f);
    if (f < 1000) return absl::StrFormat("%.0f", f);
    return FormatCount(f);
  };
  if (b.median > 0 && a.median / b.median >= 2) {
    absl::StrAppend(&s, " (1/", factor(a.median / b.median), ")");
  } else if (a.median > 0 && b.median / a.median >= 2) {
    absl::StrAppend(&s, " (x", factor(b.median / a.median), ")");
  }
  return s + test;
}

}  // namespace

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 9e15) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.6g", v);
}

std::string FormatCell(const Summary& s, Unit unit) {
  std::string out = console::FormatValue(s.median, unit);
  if (s.runs.size() > 1) {
    const double dev = std::max(s.max - s.median, s.median - s.min);
    const double pct = s.median != 0 ? dev / std::fabs(s.median) * 100.0 : 0;
    absl::StrAppend(&out, absl::StrFormat(" ±%.0f%%", pct));
  }
  return out;
}

const std::vector<MetricDef>& TableMetrics() {
  static const std::vector<MetricDef> metrics = {
      {"codec_bytes", "codec lib bytes allocated", Unit::kBytes, false},
      {"codec_calls", "codec lib alloc calls", Unit::kCount, false},
      {"process_bytes", "process bytes allocated", Unit::kBytes, false},
      {"process_calls", "process alloc calls", Unit::kCount, false},
      {"peak_heap_bytes", "peak heap in use", Unit::kBytes, true},
      {"peak_rss_bytes", "peak RSS", Unit::kBytes, true},
      {"minor_faults", "minor page faults", Unit::kCount, true},
      {"cpu_ns", "CPU time", Unit::kNanos, true},
      {"wall_ns", "wall time", Unit::kNanos, true},
      {"throughput", "throughput (uncompressed)", Unit::kRate, true},
      {"ratio", "compression ratio", Unit::kRatio, false},
      {"contexts_created", "contexts created", Unit::kCount, false},
      {"contexts_reused", "contexts reused", Unit::kCount, false},
      {"contexts_peak_in_use", "contexts in use (peak)", Unit::kCount, false},
      {"idle_bytes_end", "idle context bytes at end", Unit::kBytes, false},
  };
  return metrics;
}

double MetricValue(const RunResult& run, const std::string& key) {
  auto get = [&](const char* k) -> double {
    auto it = run.metrics.find(k);
    return it == run.metrics.end() ? 0.0 : static_cast<double>(it->second);
  };
  if (key == "throughput") {
    const double wall = get("wall_ns");
    return wall > 0 ? get("uncompressed_bytes") / 1e6 / (wall / 1e9) : 0;
  }
  if (key == "ratio") {
    const double stored = get("stored_bytes");
    return stored > 0 ? get("uncompressed_bytes") / stored : 0;
  }
  return get(key.c_str());
}

Summary Summarize(const std::vector<RunResult>& runs, const std::string& key) {
  std::vector<double> values;
  for (const RunResult& r : runs) values.push_back(MetricValue(r, key));
  return process::Summarize(std::move(values));
}

process::RunsComparison CompareMetric(const std::vector<RunResult>& stock,
                                      const std::vector<RunResult>& pooled,
                                      const std::string& key) {
  return process::CompareRuns(Summarize(stock, key).runs, Summarize(pooled, key).runs);
}

std::string SavingLine(const ModeReport& m, bool malloc_counter_active) {
  const char* key = malloc_counter_active ? "process_bytes" : "codec_bytes";
  const double stock = Summarize(m.stock, key).median;
  const double pooled = Summarize(m.pooled, key).median;
  const double created_stock = Summarize(m.stock, "contexts_created").median;
  const double created_pooled = Summarize(m.pooled, "contexts_created").median;
  const double saved = stock - pooled;
  const double pct = stock > 0 ? saved / stock * 100.0 : 0.0;
  const std::string what =
      malloc_counter_active ? "of the process's allocated bytes" : "of the codec library's bytes";
  const std::string on = m.stock_is.empty() ? "" : absl::StrCat(" on ", m.stock_is);
  if (pct < 5.0) {
    // A negative saving is the pools' own bookkeeping: say so, not "saves -x".
    const std::string bytes =
        saved >= 0 ? absl::StrFormat("saves %s (%.1f%% %s)", FormatBytes(saved), pct, what)
                   : absl::StrFormat("saves no bytes (pooled allocates %s more, +%.1f%% %s)",
                                     FormatBytes(-saved), -pct, what);
    // No context counted at all: the codec's calls did not reach rockpool
    // (a codec its face does not serve; the notes say which).
    return absl::StrFormat("saving: near zero%s: rockpool %s and %s of %s contexts created; %s", on,
                           bytes, FormatCount(created_stock - created_pooled),
                           FormatCount(created_stock),
                           created_stock + created_pooled > 0
                               ? "stock's call pattern here already keeps its contexts"
                               : "no codec context counted in either strategy (see the notes)");
  }
  return absl::StrFormat("saving%s: rockpool removes %.1f%% %s (%s) and %s of %s contexts created",
                         on, pct, what, FormatBytes(saved),
                         FormatCount(created_stock - created_pooled), FormatCount(created_stock));
}

namespace {

// "runs: 5 stock + 5 pooled[ under each of glibc, jemalloc and tcmalloc], ..."
std::string RunsLine(const ModeReport& m) {
  std::string under;
  if (m.allocators.size() > 1) {
    std::vector<std::string> names;
    for (const AllocatorRuns& a : m.allocators) names.push_back(a.name);
    const std::string last = names.back();
    names.pop_back();
    under = absl::StrCat(" under each of ", absl::StrJoin(names, ", "), " and ", last,
                         " (one allocator after the other)");
  }
  return absl::StrCat("runs: ", m.stock.size(), " stock + ", m.pooled.size(), " pooled", under,
                      ", alternating, each in its own process; median ±max deviation\n");
}

// The replay window's figures (allocation first) of the first allocator.
std::string WindowTable(const ModeReport& m) {
  std::string out =
      m.allocators.size() > 1
          ? absl::StrCat("replay window only (the measured part of each child), under ",
                         m.allocators.front().name, "; the other allocators' are in --json:\n")
          : "replay window only (the measured part of each child):\n";
  constexpr size_t kLabel = 28, kValue = 22;
  absl::StrAppend(&out, PadColumns("", kLabel), PadColumns("stock", kValue),
                  PadColumns("pooled", kValue), "delta\n");
  for (const MetricDef& def : TableMetrics()) {
    const process::RunsComparison c = CompareMetric(m.stock, m.pooled, def.key);
    absl::StrAppend(&out, PadColumns(def.label, kLabel),
                    PadColumns(FormatCell(c.before, def.unit), kValue),
                    PadColumns(FormatCell(c.after, def.unit), kValue), Delta(c, def.noisy), "\n");
  }
  return out;
}

}  // namespace

std::string FormatTable(const Report& report) {
  std::string out;
  if (report.default_workload) {
    absl::StrAppend(&out, "input: embedded default workload (", report.workload_description, ")\n");
  }
  if (!report.pattern.header.empty()) {
    absl::StrAppend(&out, report.pattern.header, "\n");
    for (const std::string& n : report.pattern.notes) absl::StrAppend(&out, "note: ", n, "\n");
  }
  for (const std::string& n : report.allocator_notes) absl::StrAppend(&out, "note: ", n, "\n");
  for (const ModeReport& m : report.modes) {
    absl::StrAppend(&out, "\n", m.mode, " mode: ", m.description, "\n", RunsLine(m));
    if (m.identical) {
      absl::StrAppend(
          &out, "outputs: identical (", FormatCount(static_cast<double>(m.compared_blocks)),
          m.mode == "blocks" ? " compressed blocks" : " data blocks", " compared byte for byte; ",
          m.compared_runs == 1 ? std::string("the pooled run")
                               : absl::StrCat(m.compared_runs, " runs"),
          " against the first stock run)\n");
    } else {
      absl::StrAppend(&out, "outputs: DIFFERENT: ", m.difference, "\n");
    }
    absl::StrAppend(&out, "\n", FormatFeltTable(m), "\n", WindowTable(m));
    absl::StrAppend(&out, SavingLine(m, report.malloc_counter_active), "\n");
    for (const std::string& note : m.notes) absl::StrAppend(&out, "note: ", note, "\n");
  }
  if (!report.malloc_counter_active) {
    absl::StrAppend(&out,
                    "\nnote: the process malloc counter is off in this build (sanitizer); "
                    "process bytes, calls and heap figures read 0\n");
  }
  return out;
}

std::string SummaryJson(const Summary& x) {
  std::string runs;
  for (size_t j = 0; j < x.runs.size(); ++j)
    absl::StrAppend(&runs, j ? ", " : "", JsonNumber(x.runs[j]));
  return absl::StrCat("{\"median\": ", JsonNumber(x.median), ", \"min\": ", JsonNumber(x.min),
                      ", \"max\": ", JsonNumber(x.max), ", \"runs\": [", runs, "]}");
}

std::string JsonMember(const std::string& key, const std::string& value) {
  return absl::StrCat(JsonString(key), ": ", value);
}

std::string JsonLines(const std::string& open, const std::vector<std::string>& members,
                      const std::string& indent, const char* close) {
  if (members.empty()) return absl::StrCat(open, close);
  const std::string outer = indent.substr(0, indent.size() >= 2 ? indent.size() - 2 : 0);
  return absl::StrCat(open, "\n", indent, absl::StrJoin(members, ",\n" + indent), "\n", outer,
                      close);
}

std::string MetricsJson(const std::vector<RunResult>& stock, const std::vector<RunResult>& pooled,
                        const std::string& indent) {
  // The table's metrics first, then every other metric the runs reported.
  std::vector<std::pair<std::string, MetricDef>> keys;
  std::set<std::string> seen;
  for (const MetricDef& d : TableMetrics()) {
    keys.emplace_back(d.key, d);
    seen.insert(d.key);
  }
  for (const auto* runs : {&stock, &pooled}) {
    for (const RunResult& r : *runs) {
      for (const auto& [k, v] : r.metrics) {
        if (seen.insert(k).second) keys.emplace_back(k, MetricDef{"", "", GuessUnit(k), false});
      }
    }
  }
  std::vector<std::string> members;
  for (const auto& [key, def] : keys) {
    const process::RunsComparison c = CompareMetric(stock, pooled, key);
    // From nothing to something is no percentage: null.
    const double delta = c.before.median == 0 && c.after.median != 0 ? NAN : c.delta_percent;
    std::string o = absl::StrCat("{\"unit\": ", JsonString(kUnitNames[static_cast<int>(def.unit)]));
    if (def.label[0] != '\0') absl::StrAppend(&o, ", \"label\": ", JsonString(def.label));
    absl::StrAppend(&o, ", \"stock\": ", SummaryJson(c.before),
                    ", \"pooled\": ", SummaryJson(c.after),
                    ", \"delta_percent\": ", JsonNumber(delta), "}");
    members.push_back(JsonMember(key, o));
  }
  return JsonLines("{", members, indent, "}");
}

namespace {

std::string PatternJson(const PatternReport& p) {
  return absl::StrCat("{\"header\": ", JsonString(p.header), ", \"pattern\": ", JsonString(p.key),
                      ", \"rocksdb_version\": ", JsonString(p.version),
                      ", \"source\": ", JsonString(p.source),
                      ", \"compression_managers\": ", JsonStrings(p.compression_managers),
                      ", \"notes\": ", JsonStrings(p.notes), "}");
}

const char* JsonBool(bool b) { return b ? "true" : "false"; }

std::string InputJson(const InputReport& in) {
  return absl::StrCat(
      "{\"path\": ", JsonString(in.path), ", \"kind\": ", JsonString(in.kind),
      ", \"codec\": ", JsonString(in.codec), ", \"level\": ", in.level,
      ", \"data_blocks\": ", in.data_blocks, ", \"stored_data_bytes\": ", in.stored_data_bytes,
      ", \"format_version\": ", in.format_version, ", \"checksum\": ", JsonString(in.checksum),
      ", \"dictionary\": ", JsonBool(in.dictionary),
      ", \"blocks_mode\": ", JsonString(in.blocks_mode),
      ", \"compaction_mode\": ", JsonString(in.compaction_mode), "}");
}

// The first stock and pooled runs' cumulative allocation (the chart's lines).
std::string SeriesJson(const ModeReport& m) {
  std::string o = absl::StrCat("{\"x\": ", JsonString(m.x_label),
                               ", \"columns\": [\"x\", \"process_bytes\", \"codec_bytes\"]");
  for (const auto& [name, runs] : {std::pair{"stock", &m.stock}, std::pair{"pooled", &m.pooled}}) {
    std::vector<std::string> points;
    if (!runs->empty()) {
      for (const SeriesPoint& p : runs->front().series) {
        points.push_back(
            absl::StrCat("[", JsonNumber(p.x), ", ", p.process_bytes, ", ", p.codec_bytes, "]"));
      }
    }
    absl::StrAppend(&o, ", ", JsonString(name), ": [", absl::StrJoin(points, ", "), "]");
  }
  return o + "}";
}

std::string ModeJson(const ModeReport& m, bool malloc_counter_active) {
  const std::vector<std::string> members = {
      JsonMember("mode", JsonString(m.mode)),
      JsonMember("description", JsonString(m.description)),
      JsonMember("runs_per_strategy", absl::StrCat(m.stock.size())),
      JsonMember("identical", JsonBool(m.identical)),
      JsonMember("compared_blocks", absl::StrCat(m.compared_blocks)),
      JsonMember("compared_runs", absl::StrCat(m.compared_runs)),
      JsonMember("difference", JsonString(m.difference)),
      JsonMember("stock_is", JsonString(m.stock_is)),
      JsonMember("saving", JsonString(SavingLine(m, malloc_counter_active))),
      JsonMember("notes", JsonStrings(m.notes)),
      JsonMember("metrics", MetricsJson(m.stock, m.pooled, "        ")),
      JsonMember("allocators", AllocatorsJson(m, "        ")),
      JsonMember("series", SeriesJson(m)),
  };
  return JsonLines("{", members, "      ", "}");
}

}  // namespace

std::string FormatJson(const Report& report) {
  std::vector<std::string> inputs;
  for (const InputReport& in : report.inputs) inputs.push_back(InputJson(in));
  std::vector<std::string> modes;
  for (const ModeReport& m : report.modes) {
    modes.push_back(ModeJson(m, report.malloc_counter_active));
  }
  const std::vector<std::string> members = {
      JsonMember("tool", JsonString("sst_replay")),
      JsonMember("default_workload", JsonBool(report.default_workload)),
      JsonMember("workload", JsonString(report.workload_description)),
      JsonMember("repeat", absl::StrCat(report.repeat)),
      JsonMember("allocator", JsonString(report.allocator_flag)),
      JsonMember("allocator_notes", JsonStrings(report.allocator_notes)),
      JsonMember("stock_pattern", PatternJson(report.pattern)),
      JsonMember("process_malloc_counter",
                 JsonString(report.malloc_counter_active
                                ? "malloc/calloc/realloc/memalign/... interposed in the executable"
                                : "inactive (sanitizer build)")),
      JsonMember("inputs", JsonLines("[", inputs, "    ", "]")),
      JsonMember("modes", JsonLines("[", modes, "    ", "]")),
      JsonMember("exit_code", absl::StrCat(report.exit_code)),
  };
  return JsonLines("{", members, "  ", "}") + "\n";
}

}  // namespace rockpool::replay
