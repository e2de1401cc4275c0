#include "tools/process/compare_runs.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tools/json/json_value.h"

namespace rockpool::process {
namespace {

TEST(SummarizeTest, MedianMinMaxInRunOrder) {
  const Summary odd = Summarize({3, 1, 2});
  EXPECT_EQ(odd.median, 2);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 3);
  EXPECT_EQ(odd.runs, (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(Summarize({4, 1, 3, 2}).median, 2.5);
  const Summary none = Summarize({});
  EXPECT_EQ(none.median, 0);
  EXPECT_TRUE(none.runs.empty());
}

TEST(CompareRunsTest, ShiftOnlyWhereTheTestSaysSo) {
  const std::vector<double> before = {98, 99, 100, 101, 102};
  const RunsComparison lower = CompareRuns(before, {48, 49, 50, 51, 52});
  EXPECT_TRUE(lower.tested);
  EXPECT_NEAR(lower.p, 0.008, 0.0005);
  EXPECT_EQ(lower.shift, Shift::kLower);
  EXPECT_DOUBLE_EQ(lower.delta_percent, -50.0);
  EXPECT_EQ(CompareRuns(before, {110, 111, 112, 113, 114}).shift, Shift::kHigher);
  // Overlapping samples: the median moved, but that is noise.
  const RunsComparison noise = CompareRuns(before, {99, 101, 102, 104, 100});
  EXPECT_GT(noise.p, 0.05);
  EXPECT_EQ(noise.shift, Shift::kNone);
  EXPECT_DOUBLE_EQ(noise.delta_percent, 1.0);
  // A stricter alpha turns a shift into none.
  EXPECT_EQ(CompareRuns(before, {48, 49, 50, 51, 52}, 0.001).shift, Shift::kNone);
}

TEST(CompareRunsTest, OneRunASideIsNotTested) {
  const RunsComparison one = CompareRuns({100}, {10});
  EXPECT_FALSE(one.tested);
  EXPECT_EQ(one.p, 1.0);
  EXPECT_EQ(one.shift, Shift::kNone);
  EXPECT_DOUBLE_EQ(one.delta_percent, -90.0);
  // From zero, no percentage.
  EXPECT_EQ(CompareRuns({0, 0}, {5, 6}).delta_percent, 0.0);
}

TEST(FormatSummaryTest, MedianAndLargestDeviation) {
  EXPECT_EQ(FormatSummary(Summarize({1500}), console::Unit::kNanos), "1.5 us");
  EXPECT_EQ(FormatSummary(Summarize({120, 90, 100}), console::Unit::kNanos), "100 ns ±20%");
  EXPECT_EQ(FormatSummary(Summarize({0, 0}), console::Unit::kNanos), "0 ns ±0%");
}

TEST(FormatChangeTest, LikeBenchstat) {
  const std::vector<double> before = {98, 99, 100, 101, 102};
  const RunsComparison half = CompareRuns(before, {48, 49, 50, 51, 52});
  EXPECT_EQ(FormatChange(half, false), "-50.00% (1/2.0)");
  EXPECT_EQ(FormatChange(half, true), "-50.00% (1/2.0) (p=0.008 n=5+5)");
  // Noise: "~" for a noisy measure, the change for another.
  const RunsComparison noise = CompareRuns(before, {99, 101, 102, 104, 100});
  EXPECT_EQ(FormatChange(noise, true).rfind("~ (p=", 0), 0u) << FormatChange(noise, true);
  EXPECT_EQ(FormatChange(noise, false), "+1.00%");
  EXPECT_EQ(FormatChange(CompareRuns({100}, {300}), true), "+200.00% (x3.0) (n=1)");
  EXPECT_EQ(FormatChange(CompareRuns({100}, {5000}), false), "+4900.00% (x50)");
  EXPECT_EQ(FormatChange(CompareRuns({5000}, {1}), false), "-99.980% (1/5.00k)");
  EXPECT_EQ(FormatChange(CompareRuns({0}, {0}), false), "0%");
  EXPECT_EQ(FormatChange(CompareRuns({0}, {5}), true), "+inf");
}

TEST(SummaryJsonTest, NumbersExactOrToSixDigits) {
  EXPECT_EQ(json::ToText(SummaryJson(Summarize({3, 1.5}))),
            R"({"median":2.25,"min":1.5,"max":3,"runs":[3,1.5]})");
  EXPECT_EQ(json::ToText(JsonNumber(1.0 / 3)), "0.333333");
  EXPECT_EQ(json::ToText(JsonNumber(NAN)), "null");
}

}  // namespace
}  // namespace rockpool::process
