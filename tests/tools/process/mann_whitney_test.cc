// tools/process/mann_whitney.h against the p-values benchstat prints: the
// exact distribution for small samples, an empty sample, and the
// normal approximation beyond 40 values.
#include "tools/process/mann_whitney.h"

#include <vector>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

TEST(MannWhitneyTest, MatchesBenchstat) {
  // Fully separated samples: the smallest p-values benchstat can print.
  EXPECT_NEAR(MannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.100, 1e-9);
  EXPECT_NEAR(MannWhitneyP({6, 5, 4}, {1, 2, 3}), 0.100, 1e-9);
  EXPECT_NEAR(MannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-9);
  EXPECT_NEAR(MannWhitneyP({1, 3, 5}, {2, 4, 6}), 0.7, 1e-9);
  EXPECT_EQ(MannWhitneyP({1}, {}), 1.0);
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 100);
  }
  EXPECT_LT(MannWhitneyP(a, b), 1e-6);  // normal approximation
}

}  // namespace
}  // namespace rockpool::process
