#include "tools/console/units.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace rockpool::console {

namespace {

// Divides *v by `base` until it is below it, at most four times (the largest
// unit); returns how many times. Sizes and counts differ only in base and names.
int ScaleDown(double* v, double base) {
  int unit = 0;
  for (; std::fabs(*v) >= base && unit < 4; ++unit) *v /= base;
  return unit;
}

// The precision is an argument: one constant format (clang checks formats).
std::string ThreeDigits(double v, const char* unit) {
  return absl::StrFormat("%.*f%s", std::fabs(v) < 10 ? 2 : (std::fabs(v) < 100 ? 1 : 0), v, unit);
}

}  // namespace

std::string FormatBytes(double b) {
  static const char* const kUnits[] = {" B", " KiB", " MiB", " GiB", " TiB"};
  const int unit = ScaleDown(&b, 1024);
  return unit == 0 ? absl::StrFormat("%.0f B", b) : ThreeDigits(b, kUnits[unit]);
}

std::string FormatCount(double n) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T"};
  const int unit = ScaleDown(&n, 1000);
  if (unit > 0) return ThreeDigits(n, kUnits[unit]);
  return n == std::floor(n) ? absl::StrFormat("%.0f", n) : absl::StrFormat("%.2f", n);
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

}  // namespace rockpool::console
