// What users feel, first in each mode's report: the felt_* metrics of each
// whole child process, stock against pooled under each --allocator, with a
// Mann-Whitney U verdict (README.md beside this file, "The felt section").
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_FELT_REPORT_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_FELT_REPORT_H_

#include <string>
#include <vector>

#include "tools/sst_replay/report.h"

namespace rockpool::replay {

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

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_FELT_REPORT_H_
