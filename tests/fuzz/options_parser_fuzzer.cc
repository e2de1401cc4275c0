// Fuzz target: the plugin's options-string parser (rocksdb_plugin/options.h),
// which reads text from OPTIONS files and `listeners={id=rockpool;...}`
// strings. Whatever parses must be within the documented limits, print back
// (ToString) to text that parses to the same options, and map to consistent
// pool options; whatever fails must be InvalidArgument. The same text as
// name=value lines goes through ParseRockpoolOptions with ignore_unknown.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocksdb_plugin/options.h"
#include "tests/fuzz/fuzz_check.h"

using rockpool::RockpoolOptions;

namespace {

void CheckParsed(const RockpoolOptions& o) {
  FUZZ_CHECK(o.max_idle_per_key <= RockpoolOptions::kMaxIdlePerKeyLimit);
  FUZZ_CHECK(o.idle_seconds <= RockpoolOptions::kIdleSecondsLimit);
  const std::string text = o.ToString();
  absl::StatusOr<RockpoolOptions> again = rockpool::ParseRockpoolOptionsString(text);
  FUZZ_CHECK_MSG(again.ok(), text);
  FUZZ_CHECK_MSG(*again == o, text);
  for (const std::string& name : rockpool::RockpoolOptionNames()) {
    absl::StatusOr<std::string> value = rockpool::GetRockpoolOption(name, o);
    FUZZ_CHECK(value.ok());
    RockpoolOptions copy;
    FUZZ_CHECK(rockpool::SetRockpoolOption(name, *value, &copy).ok());
    FUZZ_CHECK(*rockpool::GetRockpoolOption(name, copy) == *value);
  }
  const rockpool::PoolOptions pool = o.ToPoolOptions();
  if (o.mode() == RockpoolOptions::Mode::kPool) {
    FUZZ_CHECK(pool.max_retained_per_key == o.max_idle_per_key && pool.max_retained_per_key > 0);
  } else {
    FUZZ_CHECK(pool.max_retained_per_key == 0);
  }
}

void CheckError(const absl::Status& s) {
  FUZZ_CHECK_MSG(s.code() == absl::StatusCode::kInvalidArgument, s.ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  RockpoolOptions other_base;
  other_base.enabled = false;
  other_base.max_idle_per_key = 3;
  other_base.idle_seconds = 0;
  other_base.measure_stock = true;

  absl::StatusOr<RockpoolOptions> parsed = rockpool::ParseRockpoolOptionsString(text);
  absl::StatusOr<RockpoolOptions> on_other = rockpool::ParseRockpoolOptionsString(text, other_base);
  // Whether text is valid does not depend on the base it is applied to.
  FUZZ_CHECK(parsed.ok() == on_other.ok());
  if (parsed.ok()) {
    CheckParsed(*parsed);
    CheckParsed(*on_other);
  } else {
    CheckError(parsed.status());
    CheckError(on_other.status());
  }

  // The map form (what RocksDB's own parser hands over): one pair per line.
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      pairs.emplace_back(std::string(line), std::string());
    } else {
      pairs.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
    start = end + 1;
  }
  for (bool ignore_unknown : {false, true}) {
    absl::StatusOr<RockpoolOptions> from_pairs =
        rockpool::ParseRockpoolOptions(pairs, RockpoolOptions{}, ignore_unknown);
    if (from_pairs.ok()) {
      CheckParsed(*from_pairs);
    } else {
      CheckError(from_pairs.status());
    }
  }
  return 0;
}
