#include "tools/process/thinning_series.h"

#include <vector>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

// Offers 0, 1, 2, ... keeping what is due, as a sampler does.
std::vector<int> Fill(size_t capacity, int offers) {
  ThinningSeries<int> series(capacity);
  for (int i = 0; i < offers; ++i) {
    if (series.Due()) series.Add(i);
  }
  return series.points();
}

TEST(ThinningSeriesTest, KeepsEveryPointWhileThereIsRoom) {
  EXPECT_EQ(Fill(8, 5), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Fill(8, 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ThinningSeriesTest, ThinsEvenlyOverTheWholeRun) {
  // Full at 8: halved to 0 2 4 6, then every second offer.
  EXPECT_EQ(Fill(8, 12), (std::vector<int>{0, 2, 4, 6, 8, 10}));
  // Four times over: every fourth offer of 32, still from the start.
  EXPECT_EQ(Fill(8, 32), (std::vector<int>{0, 4, 8, 12, 16, 20, 24, 28}));
  const std::vector<int> long_run = Fill(8, 100000);
  EXPECT_LE(long_run.size(), 8u);
  EXPECT_GE(long_run.size(), 4u);
  EXPECT_EQ(long_run.front(), 0);
  for (size_t i = 2; i < long_run.size(); ++i) {
    EXPECT_EQ(long_run[i] - long_run[i - 1], long_run[1] - long_run[0]) << "uneven at " << i;
  }
}

TEST(ThinningSeriesTest, AddKeepsALastPointThatIsNotDue) {
  ThinningSeries<int> series(4);
  for (int i = 0; i < 7; ++i) {
    if (series.Due()) series.Add(i);
  }
  series.Add(7);  // full: thinned to 0 4 first
  EXPECT_EQ(series.points(), (std::vector<int>{0, 4, 7}));
}

TEST(ThinningSeriesTest, NeverAllocatesAfterConstruction) {
  ThinningSeries<int> series(16);
  const int* storage = series.points().data();
  for (int i = 0; i < 10000; ++i) {
    if (series.Due()) series.Add(i);
  }
  EXPECT_EQ(series.points().data(), storage);
  EXPECT_LE(series.points().capacity(), 16u);
}

}  // namespace
}  // namespace rockpool::process
