// Hidden flags: how sst_replay starts its own child runs, and, in test
// builds only, a test hook. Defined in internal_flags.cc, so `--help` (this
// tool's main file only) does not list them; `--helpfull` does.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_INTERNAL_FLAGS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_INTERNAL_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(bool, internal_child);
ABSL_DECLARE_FLAG(std::string, internal_job);
ABSL_DECLARE_FLAG(std::string, internal_result);
ABSL_DECLARE_FLAG(int32_t, internal_progress_fd);
#ifdef ROCKPOOL_DEBUG_CHECKS
// Test builds only (`bazel test` defines ROCKPOOL_DEBUG_CHECKS, .bazelrc,
// for the binaries tests run too): a released sst_replay has no way to
// damage its own output.
ABSL_DECLARE_FLAG(bool, testonly_corrupt_pooled_output);
#endif

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_INTERNAL_FLAGS_H_
