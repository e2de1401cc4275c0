// sst_replay's output-damaging test hooks, in the testonly target
// //tools/sst_replay:child_runs_testing and so only in :sst_replay_testing,
// the binary the tests run to see a difference reported (exit 1): what ships,
// :sst_replay, can never damage its own output.
//
// Linked in, this library sets RunAlternating's seam (child_runs.h) when the
// program starts, and defines the flag that arms it:
//   --testonly_corrupt_pooled_output  flip one byte of the first pooled
//                                     output compared (exit 1 must follow)
// Only ever applied to scratch outputs.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_TESTING_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_TESTING_H_

#include <string>

#include "absl/status/status.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/child_runs.h"

namespace rockpool::replay {

// Flips one byte in the middle of the first non-empty compressed block of a
// framed output (compare.h); OK without touching a file that has none.
absl::Status CorruptFirstFramedRecordForTesting(const std::string& path);

// Flips one byte in the middle of the first data block of an SST; OK
// without touching a file that has none.
absl::Status CorruptFirstDataBlockForTesting(const std::string& path,
                                             const sst::SstReadOptions& options);

// The seam's hook: with --testonly_corrupt_pooled_output, damages the first
// output it is handed (its framed file, or its first SST's first data
// block), and nothing after; without the flag, nothing.
absl::Status CorruptFirstPooledOutputForTesting(const RunOutput& output);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_TESTING_H_
