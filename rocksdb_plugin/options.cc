#include "rocksdb_plugin/options.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace rockpool {
namespace {

// Debian's Abseil has its own string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0).
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string_view Strip(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kEnabled = "enabled";
constexpr std::string_view kMaxIdlePerKey = "max_idle_per_key";
constexpr std::string_view kIdleSeconds = "idle_seconds";
constexpr std::string_view kMeasureStock = "measure_stock";

absl::Status BadValue(std::string_view name, std::string_view value, std::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat("rockpool option ", A(name), ": invalid value \"",
                                                 A(value), "\" (", A(want), ")"));
}

absl::Status ParseBool(std::string_view name, std::string_view value, bool* out) {
  if (value == "true" || value == "1") {
    *out = true;
  } else if (value == "false" || value == "0") {
    *out = false;
  } else {
    return BadValue(name, value, "want true, false, 1 or 0");
  }
  return absl::OkStatus();
}

absl::Status ParseUnsigned(std::string_view name, std::string_view value, uint64_t limit,
                           uint64_t* out) {
  const std::string want = absl::StrCat("want an unsigned decimal integer in 0..", limit);
  if (value.empty() || value.size() > 20) return BadValue(name, value, want);
  uint64_t v = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return BadValue(name, value, want);
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return BadValue(name, value, want);
    v = v * 10 + digit;
  }
  if (v > limit) return BadValue(name, value, want);
  *out = v;
  return absl::OkStatus();
}

std::string BoolText(bool b) { return b ? "true" : "false"; }

absl::Status UnknownOption(std::string_view name) {
  return absl::InvalidArgumentError(
      absl::StrCat("rockpool: unknown option \"", A(name),
                   "\" (known options: ", absl::StrJoin(RockpoolOptionNames(), ", "), ")"));
}

}  // namespace

RockpoolOptions::Mode RockpoolOptions::mode() const {
  if (!enabled) return Mode::kForward;
  if (measure_stock) return Mode::kMeasureStock;
  if (max_idle_per_key == 0) return Mode::kForward;
  return Mode::kPool;
}

PoolOptions RockpoolOptions::ToPoolOptions() const {
  PoolOptions pool;
  pool.max_retained_per_key = mode() == Mode::kPool ? max_idle_per_key : 0;
  pool.idle_timeout = idle_seconds == 0 ? absl::InfiniteDuration()
                                        : absl::Seconds(static_cast<int64_t>(idle_seconds));
  return pool;
}

std::string RockpoolOptions::ToString() const {
  std::string out;
  for (const std::string& name : RockpoolOptionNames()) {
    if (!out.empty()) out += ';';
    absl::StrAppend(&out, name, "=", *GetRockpoolOption(name, *this));
  }
  return out;
}

const std::vector<std::string>& RockpoolOptionNames() {
  static const auto* const names =
      new std::vector<std::string>{std::string(kEnabled), std::string(kMaxIdlePerKey),
                                   std::string(kIdleSeconds), std::string(kMeasureStock)};
  return *names;
}

absl::Status SetRockpoolOption(std::string_view name, std::string_view value,
                               RockpoolOptions* options) {
  value = Strip(value);
  if (name == kEnabled) return ParseBool(name, value, &options->enabled);
  if (name == kMeasureStock) return ParseBool(name, value, &options->measure_stock);
  if (name == kMaxIdlePerKey) {
    uint64_t v;
    if (absl::Status s = ParseUnsigned(name, value, RockpoolOptions::kMaxIdlePerKeyLimit, &v);
        !s.ok()) {
      return s;
    }
    options->max_idle_per_key = static_cast<size_t>(v);
    return absl::OkStatus();
  }
  if (name == kIdleSeconds) {
    return ParseUnsigned(name, value, RockpoolOptions::kIdleSecondsLimit, &options->idle_seconds);
  }
  return UnknownOption(name);
}

absl::StatusOr<std::string> GetRockpoolOption(std::string_view name,
                                              const RockpoolOptions& options) {
  if (name == kEnabled) return BoolText(options.enabled);
  if (name == kMeasureStock) return BoolText(options.measure_stock);
  if (name == kMaxIdlePerKey) return absl::StrCat(options.max_idle_per_key);
  if (name == kIdleSeconds) return absl::StrCat(options.idle_seconds);
  return UnknownOption(name);
}

absl::StatusOr<RockpoolOptions> ParseRockpoolOptions(
    std::vector<std::pair<std::string, std::string>> pairs, const RockpoolOptions& base,
    bool ignore_unknown) {
  for (auto& [name, value] : pairs) name = std::string(Strip(name));
  // A stable insertion sort by name: a handful of pairs, and std::stable_sort
  // would add 16 KiB of code that every process loading rockpool maps at
  // start-up (rocksdb_plugin/DESIGN.md, "What loading rockpool costs").
  for (size_t i = 1; i < pairs.size(); ++i) {
    for (size_t j = i; j > 0 && pairs[j].first < pairs[j - 1].first; --j) {
      std::swap(pairs[j], pairs[j - 1]);
    }
  }
  RockpoolOptions options = base;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& [name, value] = pairs[i];
    if (i > 0 && pairs[i - 1].first == name) {
      return absl::InvalidArgumentError(
          absl::StrCat("rockpool option ", name, ": given more than once"));
    }
    const auto& known = RockpoolOptionNames();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      if (ignore_unknown) continue;
      return UnknownOption(name);
    }
    if (absl::Status s = SetRockpoolOption(name, value, &options); !s.ok()) return s;
  }
  return options;
}

absl::StatusOr<RockpoolOptions> ParseRockpoolOptionsString(std::string_view text,
                                                           const RockpoolOptions& base) {
  text = Strip(text);
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    text = Strip(text.substr(1, text.size() - 2));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!text.empty()) {
    const size_t semi = text.find(';');
    std::string_view item = Strip(text.substr(0, semi));
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("rockpool: \"", A(item), "\" is not of the form name=value"));
    }
    pairs.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
  }
  return ParseRockpoolOptions(std::move(pairs), base);
}

}  // namespace rockpool
