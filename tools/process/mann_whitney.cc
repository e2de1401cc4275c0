#include "tools/process/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace rockpool::process {

double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return 1.0;
  // U counts the pairs where a wins (ties count half); work in halves.
  int64_t u2 = 0;
  for (double x : a) {
    for (double y : b) u2 += x > y ? 2 : (x == y ? 1 : 0);
  }
  const int64_t nm = static_cast<int64_t>(n * m);
  const double u = std::min(static_cast<double>(u2), static_cast<double>(2 * nm - u2)) / 2.0;
  if (n + m <= 40) {
    // Exact distribution: ways[k][j][u] = arrangements of k a's and j b's
    // with statistic u (rolling over k).
    std::vector<std::vector<double>> prev(m + 1), cur(m + 1);
    for (size_t j = 0; j <= m; ++j) prev[j].assign(static_cast<size_t>(nm) + 1, 0.0);
    for (size_t j = 0; j <= m; ++j) prev[j][0] = 1;  // k = 0
    for (size_t k = 1; k <= n; ++k) {
      for (size_t j = 0; j <= m; ++j) {
        cur[j].assign(static_cast<size_t>(nm) + 1, 0.0);
        for (size_t v = 0; v <= static_cast<size_t>(nm); ++v) {
          // Last element is an a (beats all j b's) or a b.
          double w = v >= j ? prev[j][v - j] : 0.0;
          if (j > 0) w += cur[j - 1][v];
          cur[j][v] = w;
        }
      }
      std::swap(prev, cur);
    }
    double total = 0, tail = 0;
    for (size_t v = 0; v <= static_cast<size_t>(nm); ++v) {
      total += prev[m][v];
      if (static_cast<double>(v) <= u + 1e-9) tail += prev[m][v];
    }
    return std::min(1.0, 2.0 * tail / total);
  }
  const double mean = static_cast<double>(nm) / 2.0;
  const double sd = std::sqrt(static_cast<double>(nm) * static_cast<double>(n + m + 1) / 12.0);
  const double z = (u - mean + 0.5) / sd;
  return std::min(1.0, std::erfc(-z / std::sqrt(2.0)));
}

}  // namespace rockpool::process
