// Fuzz target: the statistics-file reader of `rockpool stats`
// (tools/rockpool/stats_file.h). Whatever the text, it parses the last
// report line or answers InvalidArgument naming the file; what parses keeps
// the reader's own invariant (leases = created + reused) and formats as a
// table and as JSON, alone and summed with itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tools/rockpool/stats_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rockpool::cli::ProcessStats> s = rockpool::cli::ParseStatsText("fuzz-input", text);
  if (!s.ok()) {
    FUZZ_CHECK_MSG(s.status().code() == absl::StatusCode::kInvalidArgument, s.status().ToString());
    FUZZ_CHECK(s.status().message().rfind("fuzz-input: ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(s->total.leases == s->total.created + s->total.reused);
  FUZZ_CHECK(s->file == "fuzz-input");
  const std::vector<rockpool::cli::ProcessStats> two = {*s, *s};
  const rockpool::cli::ProcessStats sum = rockpool::cli::Total(two);
  FUZZ_CHECK(sum.total.leases == 2 * s->total.leases);
  FUZZ_CHECK(!rockpool::cli::FormatTable(two).empty());
  const std::string json = rockpool::cli::FormatJson(two);
  FUZZ_CHECK(!json.empty() && json.front() == '{');
  return 0;
}
