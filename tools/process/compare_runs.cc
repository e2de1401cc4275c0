#include "tools/process/compare_runs.h"

#include <algorithm>
#include <utility>

#include "tools/process/mann_whitney.h"

namespace rockpool::process {

Summary Summarize(std::vector<double> runs) {
  Summary s;
  s.runs = std::move(runs);
  if (s.runs.empty()) return s;
  std::vector<double> sorted = s.runs;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

RunsComparison CompareRuns(std::vector<double> before, std::vector<double> after, double alpha) {
  RunsComparison c;
  c.before = Summarize(std::move(before));
  c.after = Summarize(std::move(after));
  c.tested = c.before.runs.size() > 1 && c.after.runs.size() > 1;
  if (c.tested) c.p = MannWhitneyP(c.before.runs, c.after.runs);
  if (c.before.median != 0) {
    c.delta_percent = (c.after.median - c.before.median) / c.before.median * 100.0;
  }
  if (c.tested && c.p <= alpha && c.after.median != c.before.median) {
    c.shift = c.after.median < c.before.median ? Shift::kLower : Shift::kHigher;
  }
  return c;
}

}  // namespace rockpool::process
