#include "tools/process/compare_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

std::string FormatSummary(const Summary& s, console::Unit unit) {
  std::string out = console::FormatValue(s.median, unit);
  if (s.runs.size() < 2) return out;
  const double dev = std::max(s.max - s.median, s.median - s.min);
  return absl::StrFormat("%s ±%.0f%%", out, s.median != 0 ? dev / std::fabs(s.median) * 100 : 0);
}

std::string FormatChange(const RunsComparison& c, bool noisy) {
  const double a = c.before.median;
  const double b = c.after.median;
  const std::string test = !noisy     ? ""
                           : c.tested ? absl::StrFormat(" (p=%.3f n=%d+%d)", c.p,
                                                        c.before.runs.size(), c.after.runs.size())
                                      : " (n=1)";
  if (noisy && c.tested && c.shift == Shift::kNone) return "~" + test;
  if (a == 0) return b == 0 ? "0%" : "+inf";
  const double pct = std::fabs(c.delta_percent);
  std::string s = absl::StrFormat("%+.*f%%", pct >= 99.95 && pct < 100 ? 3 : 2, c.delta_percent);
  // Past a factor of 2, the factor too: "(1/3.0)" for a third, "(x250)".
  const double f = b > 0 ? std::max(a / b, b / a) : 0;
  if (f >= 2) {
    absl::StrAppend(&s, a > b ? " (1/" : " (x",
                    f < 10     ? absl::StrFormat("%.1f", f)
                    : f < 1000 ? absl::StrFormat("%.0f", f)
                               : console::FormatCount(f),
                    ")");
  }
  return s + test;
}

json::Value JsonNumber(double v) {
  using json::Value;
  if (!std::isfinite(v)) return Value();
  if (v == std::floor(v) && std::fabs(v) < 9e15) return Value::Integer(static_cast<int64_t>(v));
  return Value::NumberLiteral(absl::StrFormat("%.6g", v));
}

json::Value SummaryJson(const Summary& s) {
  json::Value::Array runs;
  for (double v : s.runs) runs.push_back(JsonNumber(v));
  return json::Value::MakeObject({{"median", JsonNumber(s.median)},
                                  {"min", JsonNumber(s.min)},
                                  {"max", JsonNumber(s.max)},
                                  {"runs", json::Value::MakeArray(std::move(runs))}});
}

}  // namespace rockpool::process
