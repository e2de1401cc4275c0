// Fuzz target: sst_replay's job and result files (tools/sst_replay/job.h),
// which a child reads from its parent and the parent from its child. Any
// text either parses or fails with Internal (a malformed file is the tool's
// own fault: only its parent and children write them); what parses serializes
// to text that parses to the same serialization (nothing is lost or
// invented in a round trip).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "tools/sst_replay/job.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rockpool::replay::Job> job = rockpool::replay::ParseJob(text);
  if (job.ok()) {
    const std::string once = rockpool::replay::SerializeJob(*job);
    absl::StatusOr<rockpool::replay::Job> again = rockpool::replay::ParseJob(once);
    FUZZ_CHECK_MSG(again.ok(), again.status().ToString());
    FUZZ_CHECK(rockpool::replay::SerializeJob(*again) == once);
  } else {
    FUZZ_CHECK_MSG(job.status().code() == absl::StatusCode::kInternal,
                   job.status().ToString());
  }
  absl::StatusOr<rockpool::replay::RunResult> result = rockpool::replay::ParseResult(text);
  if (result.ok()) {
    const std::string once = rockpool::replay::SerializeResult(*result);
    absl::StatusOr<rockpool::replay::RunResult> again = rockpool::replay::ParseResult(once);
    FUZZ_CHECK_MSG(again.ok(), again.status().ToString());
    FUZZ_CHECK(rockpool::replay::SerializeResult(*again) == once);
  } else {
    FUZZ_CHECK_MSG(result.status().code() == absl::StatusCode::kInternal,
                   result.status().ToString());
  }
  return 0;
}
