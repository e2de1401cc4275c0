// Aggregation and output: medians with min and max over --repeat runs, the
// benchstat-like table (stock | pooled | delta) led by the felt section, the
// JSON document and the SVG charts.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_REPORT_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/console/units.h"
#include "tools/json/json_value.h"
#include "tools/process/compare_runs.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/rocksdb_version.h"

namespace rockpool::replay {

struct MetricDef {
  const char* key;    // RunResult metric, or "throughput" / "ratio" (derived)
  const char* label;  // table row
  console::Unit unit;
  bool noisy;  // timing-like: delta only if a U test says p <= 0.05
};

// The rows of the table, in order.
const std::vector<MetricDef>& TableMetrics();

using process::Summary;

// A metric of one run, derived ones included; 0 if absent.
double MetricValue(const RunResult& run, const std::string& key);
Summary Summarize(const std::vector<RunResult>& runs, const std::string& key);
// Stock's runs of a metric against pooled's (before: stock; after: pooled).
process::RunsComparison CompareMetric(const std::vector<RunResult>& stock,
                                      const std::vector<RunResult>& pooled, const std::string& key);

// One allocator's runs of a mode (--allocator; one entry unless `all`).
struct AllocatorRuns {
  std::string name;     // process::AllocatorChoice::name
  std::string preload;  // what LD_PRELOAD named; empty for glibc
  std::vector<RunResult> stock;
  std::vector<RunResult> pooled;
};

struct ModeReport {
  std::string mode;         // "blocks" or "compaction"
  std::string description;  // what was replayed, one line
  std::string x_label;      // the series' x axis
  // The first allocator's runs (all the allocation figures and the chart
  // are theirs); `allocators` has every allocator's, these included.
  std::vector<RunResult> stock;
  std::vector<RunResult> pooled;
  std::vector<AllocatorRuns> allocators;
  bool identical = true;
  uint64_t compared_blocks = 0;  // per run
  int compared_runs = 0;
  std::string difference;
  std::vector<std::string> notes;
  // What stock is in this mode: blocks mode the pattern (StockPattern key),
  // compaction mode "RocksDB <version> (run)".
  std::string stock_is;
};

struct Report {
  // Blocks mode's stock pattern (no pattern when blocks mode did not run),
  // its notes with those on the inputs' parallel compression and recorded
  // compression manager.
  PatternChoice pattern;
  bool default_workload = false;
  std::string workload_description;
  int repeat = 1;
  bool malloc_counter_active = false;
  std::string allocator_flag = "glibc";      // --allocator as given
  std::vector<std::string> allocator_notes;  // named allocators `all` left out
  std::vector<InputReport> inputs;
  std::vector<ModeReport> modes;
  int exit_code = 0;
};

// One line on what rockpool saves in a mode, saying "near zero" when the
// process's allocation bytes (codec bytes without the malloc counter) fall
// by less than 5%.
std::string SavingLine(const ModeReport& m, bool malloc_counter_active);

std::string FormatTable(const Report& report);
std::string FormatJson(const Report& report);
// --svg (svg.cc): one panel per mode, plain SVG 1.1 (no scripts, no external
// files): on the left the cumulative bytes allocated over the replay, stock
// vs pooled (whole process: solid; codec libraries: dashed); on the right
// the main figures, pooled as a percentage of stock (stock = 100%).
std::string RenderSvg(const Report& report);

// Every metric the runs reported (the table's first), stock's and pooled's
// summaries each: the felt section's JSON has it too.
json::Value MetricsJson(const std::vector<RunResult>& stock, const std::vector<RunResult>& pooled);

// The felt section (felt_report.cc), first in each mode's report: the felt_*
// metrics of each whole child process, stock against pooled under each
// --allocator, with a U test's verdict (README.md, "The felt section").
struct FeltMetric {
  const char* key;    // RunResult metric
  const char* label;  // table row
  console::Unit unit;
  const char* noun;    // "wall"
  const char* better;  // "pooled faster"
  const char* worse;   // "pooled slower"
};

// wall time, CPU time, minor page faults, peak RSS.
const std::vector<FeltMetric>& FeltMetrics();

// "pooled slower: +12.0% wall (p=0.010)", "no felt difference (p=0.421)"
// for stock's runs against pooled's (CompareMetric); lower is better for
// every felt metric. `compact` leaves out the noun (the table with one
// column per allocator).
std::string VerdictText(const process::RunsComparison& c, const FeltMetric& metric, bool compact);

// The felt section of a mode: one column group per allocator, then the
// allocators as the children saw them. Lines end in '\n'.
std::string FormatFeltTable(const ModeReport& m);

// The mode's "allocators" JSON array: per allocator its name, preload, what
// the children found serving malloc, the felt comparison and every metric.
json::Value AllocatorsJson(const ModeReport& m);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_REPORT_H_
