#include "tools/process/compare_runs.h"

#include <vector>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace rockpool::process
