// Fuzz target: sst_replay's job and result files (tools/sst_replay/job.h),
// which a child reads from its parent and the parent from its child, and the
// JSON reader under them (tools/json). Any text either parses or fails with
// Internal (a malformed file is the tool's own fault: only its parent and
// children write them), or InvalidArgument for the JSON reader; what parses
// serializes to text that parses to the same serialization (nothing is lost
// or invented in a round trip).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "tools/json/json_parse.h"
#include "tools/json/json_value.h"
#include "tools/sst_replay/job.h"

namespace {

// `text` parses with `parse` or fails with Internal; what parses
// serializes to text that parses to the same serialization.
template <typename Parse, typename Serialize>
void CheckRoundTrip(std::string_view text, Parse parse, Serialize serialize,
                    absl::StatusCode failure = absl::StatusCode::kInternal) {
  const auto parsed = parse(text);
  if (!parsed.ok()) {
    FUZZ_CHECK_MSG(parsed.status().code() == failure, parsed.status().ToString());
    return;
  }
  const std::string once = serialize(*parsed);
  const auto again = parse(once);
  FUZZ_CHECK_MSG(again.ok(), again.status().ToString());
  FUZZ_CHECK(serialize(*again) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckRoundTrip(text, rockpool::replay::ParseJob, rockpool::replay::SerializeJob);
  CheckRoundTrip(text, rockpool::replay::ParseResult, rockpool::replay::SerializeResult);
  CheckRoundTrip(
      text,
      [](std::string_view t) {
        return rockpool::json::Parse({t.data(), t.size()});
      },
      [](const rockpool::json::Value& v) { return rockpool::json::ToText(v); },
      absl::StatusCode::kInvalidArgument);
  return 0;
}
