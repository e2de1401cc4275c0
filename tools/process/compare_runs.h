// Repeated runs of one measure (wall time, peak RSS, bytes allocated),
// summarised, and two sets of them compared: the median and its spread, and
// whether the second set differs from the first by more than noise (the
// Mann-Whitney U test, mann_whitney.h), and how that reads in a table and
// in JSON: sst_replay's stock runs against pooled's.
#ifndef ROCKPOOL_TOOLS_PROCESS_COMPARE_RUNS_H_
#define ROCKPOOL_TOOLS_PROCESS_COMPARE_RUNS_H_

#include <string>
#include <vector>

#include "tools/console/units.h"
#include "tools/json/json_value.h"

namespace rockpool::process {

// One measure over repeated runs.
struct Summary {
  double median = 0;  // of an even count: the mean of the middle two
  double min = 0;
  double max = 0;
  std::vector<double> runs;  // in run order
};

// All zero for no runs.
Summary Summarize(std::vector<double> runs);

// Which way `after` differs from `before`, where the test says it does.
enum class Shift { kNone, kLower, kHigher };

struct RunsComparison {
  Summary before;
  Summary after;
  bool tested = false;  // both sides have 2 or more runs
  double p = 1.0;       // two-sided Mann-Whitney U; 1 when not tested
  // (after - before) / before of the medians, in percent; 0 when before's
  // median is 0.
  double delta_percent = 0.0;
  // kNone unless tested with p <= alpha and the medians differ.
  Shift shift = Shift::kNone;
};

RunsComparison CompareRuns(std::vector<double> before, std::vector<double> after,
                           double alpha = 0.05);

// A table cell: the median and, over several runs, "±" the largest
// deviation from it in percent ("1.50 MiB ±3%").
std::string FormatSummary(const Summary& s, console::Unit unit);

// The change of the medians, like benchstat: "-12.34%", "+150.00% (x2.5)".
// A `noisy` measure (timing-like) reads "~" unless a shift is called, and
// says the test's p and run counts: "~ (p=0.421 n=5+5)".
std::string FormatChange(const RunsComparison& c, bool noisy);

// {"median", "min", "max", "runs"}, each a JsonNumber.
json::Value SummaryJson(const Summary& s);
// Integers exact, others to 6 significant digits, null if not finite.
json::Value JsonNumber(double v);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_COMPARE_RUNS_H_
