#include "tools/sst_replay/report.h"

#include <cmath>
#include <iterator>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/console/display_columns.h"
#include "tools/json/json_value.h"

namespace rockpool::replay {
namespace {

using console::FormatBytes;
using console::FormatCount;
using console::PadColumns;
using console::Unit;
using json::Value;

// The JSON names of the units, indexed by Unit: in its order, which
// tools/console/units.h keeps for this table.
constexpr const char* kUnitNames[] = {"bytes", "count", "ns", "MB/s", "ratio"};
static_assert(std::size(kUnitNames) == static_cast<size_t>(Unit::kRatio) + 1,
              "a name for each Unit");

Unit GuessUnit(const std::string& key) {
  if (absl::EndsWith(key, "_ns")) return Unit::kNanos;
  if (absl::EndsWith(key, "bytes") || absl::EndsWith(key, "_bytes_end")) return Unit::kBytes;
  return Unit::kCount;
}

Value Strings(const std::vector<std::string>& strings) {
  Value::Array items;
  for (const std::string& s : strings) items.push_back(Value::String(s));
  return Value::MakeArray(std::move(items));
}

}  // namespace

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
  for (size_t i = 0, n = m.allocators.size(); n > 1 && i < n; ++i) {
    absl::StrAppend(&under,
                    i == 0      ? " under each of "
                    : i + 1 < n ? ", "
                                : " and ",
                    m.allocators[i].name, i + 1 < n ? "" : " (one allocator after the other)");
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
                    PadColumns(process::FormatSummary(c.before, def.unit), kValue),
                    PadColumns(process::FormatSummary(c.after, def.unit), kValue),
                    process::FormatChange(c, def.noisy), "\n");
  }
  return out;
}

}  // namespace

std::string FormatTable(const Report& report) {
  std::string out;
  if (report.default_workload) {
    absl::StrAppend(&out, "input: embedded default workload (", report.workload_description, ")\n");
  }
  if (report.pattern.pattern != nullptr) {
    absl::StrAppend(&out, PatternHeader(report.pattern), "\n");
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

Value MetricsJson(const std::vector<RunResult>& stock, const std::vector<RunResult>& pooled) {
  // The table's metrics first, then every other metric the runs reported.
  std::vector<MetricDef> defs = TableMetrics();
  std::set<std::string> seen;
  for (const MetricDef& d : defs) seen.insert(d.key);
  for (const auto* runs : {&stock, &pooled}) {
    for (const RunResult& r : *runs) {
      for (const auto& [k, v] : r.metrics) {
        if (seen.insert(k).second) defs.push_back({k.c_str(), "", GuessUnit(k), false});
      }
    }
  }
  Value::Members members;
  for (const MetricDef& def : defs) {
    const process::RunsComparison c = CompareMetric(stock, pooled, def.key);
    // From nothing to something is no percentage: null.
    const double delta = c.before.median == 0 && c.after.median != 0 ? NAN : c.delta_percent;
    Value::Members o = {{"unit", Value::String(kUnitNames[static_cast<int>(def.unit)])}};
    if (def.label[0] != '\0') o.emplace_back("label", Value::String(def.label));
    o.emplace_back("stock", process::SummaryJson(c.before));
    o.emplace_back("pooled", process::SummaryJson(c.after));
    o.emplace_back("delta_percent", process::JsonNumber(delta));
    members.emplace_back(def.key, Value::MakeObject(std::move(o)));
  }
  return Value::MakeObject(std::move(members));
}

namespace {

Value PatternJson(const PatternChoice& p) {
  const bool chosen = p.pattern != nullptr;
  return Value::MakeObject({{"header", Value::String(chosen ? PatternHeader(p) : "")},
                            {"pattern", Value::String(chosen ? p.pattern->key : "")},
                            {"rocksdb_version", Value::String(p.version)},
                            {"source", Value::String(p.source)},
                            {"compression_managers", Strings(p.compression_managers)},
                            {"notes", Strings(p.notes)}});
}

Value InputJson(const InputReport& in) {
  return Value::MakeObject({{"path", Value::String(in.path)},
                            {"kind", Value::String(in.kind)},
                            {"codec", Value::String(in.codec)},
                            {"level", Value::Integer(in.level)},
                            {"data_blocks", Value::Integer(in.data_blocks)},
                            {"stored_data_bytes", Value::Integer(in.stored_data_bytes)},
                            {"format_version", Value::Integer(in.format_version)},
                            {"checksum", Value::String(in.checksum)},
                            {"dictionary", Value::Bool(in.dictionary)},
                            {"blocks_mode", Value::String(in.blocks_mode)},
                            {"compaction_mode", Value::String(in.compaction_mode)}});
}

// The first stock and pooled runs' cumulative allocation (the chart's lines).
Value SeriesJson(const ModeReport& m) {
  static const std::vector<SeriesPoint> kNoPoints;
  Value::Members o = {{"x", Value::String(m.x_label)},
                      {"columns", Strings({"x", "process_bytes", "codec_bytes"})}};
  for (const auto& [name, runs] : {std::pair{"stock", &m.stock}, std::pair{"pooled", &m.pooled}}) {
    Value::Array points;
    for (const SeriesPoint& p : runs->empty() ? kNoPoints : runs->front().series) {
      points.push_back(Value::MakeArray({process::JsonNumber(p.x), Value::Integer(p.process_bytes),
                                         Value::Integer(p.codec_bytes)}));
    }
    o.emplace_back(name, Value::MakeArray(std::move(points)));
  }
  return Value::MakeObject(std::move(o));
}

Value ModeJson(const ModeReport& m, bool malloc_counter_active) {
  return Value::MakeObject({
      {"mode", Value::String(m.mode)},
      {"description", Value::String(m.description)},
      {"runs_per_strategy", Value::Integer(m.stock.size())},
      {"identical", Value::Bool(m.identical)},
      {"compared_blocks", Value::Integer(m.compared_blocks)},
      {"compared_runs", Value::Integer(m.compared_runs)},
      {"difference", Value::String(m.difference)},
      {"stock_is", Value::String(m.stock_is)},
      {"saving", Value::String(SavingLine(m, malloc_counter_active))},
      {"notes", Strings(m.notes)},
      {"metrics", MetricsJson(m.stock, m.pooled)},
      {"allocators", AllocatorsJson(m)},
      {"series", SeriesJson(m)},
  });
}

}  // namespace

std::string FormatJson(const Report& report) {
  Value::Array inputs;
  for (const InputReport& in : report.inputs) inputs.push_back(InputJson(in));
  Value::Array modes;
  for (const ModeReport& m : report.modes) {
    modes.push_back(ModeJson(m, report.malloc_counter_active));
  }
  const Value doc = Value::MakeObject({
      {"tool", Value::String("sst_replay")},
      {"default_workload", Value::Bool(report.default_workload)},
      {"workload", Value::String(report.workload_description)},
      {"repeat", Value::Integer(report.repeat)},
      {"allocator", Value::String(report.allocator_flag)},
      {"allocator_notes", Strings(report.allocator_notes)},
      {"stock_pattern", PatternJson(report.pattern)},
      {"process_malloc_counter",
       Value::String(report.malloc_counter_active
                         ? "malloc/calloc/realloc/memalign/... interposed in the executable"
                         : "inactive (sanitizer build)")},
      {"inputs", Value::MakeArray(std::move(inputs))},
      {"modes", Value::MakeArray(std::move(modes))},
      {"exit_code", Value::Integer(report.exit_code)},
  });
  return json::ToIndentedText(doc) + "\n";
}

}  // namespace rockpool::replay
