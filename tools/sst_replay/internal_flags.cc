// sst_replay's hidden flags (declared in tools/sst_replay/sst_replay.cc):
// defined here, away from the main file, so that --help does not list them;
// --helpfull does.
#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "compression/debug_check.h"

ABSL_FLAG(bool, internal_child, false,
          "internal: run one measured strategy in this process (sst_replay starts itself so)");
ABSL_FLAG(std::string, internal_job, "", "internal: the child run's job file");
ABSL_FLAG(std::string, internal_result, "", "internal: where the child run writes its result");
ABSL_FLAG(int32_t, internal_progress_fd, -1, "internal: pipe for the child run's progress");
#if ROCKPOOL_DEBUG_CHECKS_ON
ABSL_FLAG(int64_t, testonly_scratch_free_bytes, -1,
          "test hook: take this many bytes as free in the scratch directory instead of asking "
          "statvfs (-1: ask)");
#endif
