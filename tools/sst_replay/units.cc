#include "tools/sst_replay/units.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace rockpool::replay {

std::string FormatBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = b;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return absl::StrFormat("%.0f B", v);
  // One constant format (clang checks formats at compile time): the
  // precision is an argument.
  const int decimals = std::fabs(v) < 10 ? 2 : (std::fabs(v) < 100 ? 1 : 0);
  return absl::StrFormat("%.*f %s", decimals, v, units[u]);
}

std::string FormatCount(double n) {
  const char* units[] = {"", "k", "M", "G", "T"};
  int u = 0;
  double v = n;
  while (std::fabs(v) >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  if (u == 0) return v == std::floor(v) ? absl::StrFormat("%.0f", v) : absl::StrFormat("%.2f", v);
  const int decimals = std::fabs(v) < 10 ? 2 : (std::fabs(v) < 100 ? 1 : 0);
  return absl::StrFormat("%.*f%s", decimals, v, units[u]);
}

std::string FormatNanos(double ns) {
  if (ns >= 1e9) return absl::StrFormat("%.2f s", ns / 1e9);
  if (ns >= 1e6) return absl::StrFormat("%.1f ms", ns / 1e6);
  if (ns >= 1e3) return absl::StrFormat("%.1f us", ns / 1e3);
  return absl::StrFormat("%.0f ns", ns);
}

std::string FormatValue(double v, Unit unit) {
  switch (unit) {
    case Unit::kBytes:
      return FormatBytes(v);
    case Unit::kCount:
      return FormatCount(v);
    case Unit::kNanos:
      return FormatNanos(v);
    case Unit::kRate:
      return absl::StrFormat("%.1f MB/s", v);
    case Unit::kRatio:
      return absl::StrFormat("%.3fx", v);
  }
  return "";
}

}  // namespace rockpool::replay
