// The one loop behind both modes: `repeat` repetitions of a stock run and a
// pooled run, alternating which goes first (plan.h's StrategyAt), once per
// --allocator, one allocator after the other; the first run is the
// reference every later run's output, under any allocator, is compared with
// byte for byte. The --testonly_corrupt_pooled_output hook (a flag of test
// builds only, internal_flags.h) lives here too: it damages the first pooled
// output that gets compared, so the tests can see a difference reported.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ALTERNATING_RUNNER_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ALTERNATING_RUNNER_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/sst_replay/allocator.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/report.h"

namespace rockpool::replay {

// One mode's part. Each Run() produces a new output; the runner asks for
// comparisons and clean-up of the latest one.
class ModeRuns {
 public:
  virtual ~ModeRuns() = default;
  // Runs `strategy` (repetition `rep`, 0-based) in a child process. Errors
  // carry the exit code's meaning (child_support.h's ExitCodeFor).
  virtual absl::StatusOr<RunResult> Run(Strategy strategy, int rep) = 0;
  // The latest output against the reference (the first run's).
  virtual absl::StatusOr<Comparison> CompareLatest(Strategy strategy) = 0;
  // Test hook: flips one byte of a compressed data block of the latest output.
  virtual absl::Status CorruptLatest() = 0;
  // The latest output / the reference output is no longer needed.
  virtual void DropLatest() = 0;
  virtual void DropReference() = 0;
  // The runs that follow are under allocator `index` of
  // AlternatingOptions::allocators.
  virtual void UseAllocator(size_t index, const AllocatorChoice& allocator) {
    (void)index;
    (void)allocator;
  }
};

struct AlternatingOptions {
  int repeat = 1;
  bool keep_outputs = false;          // --keep_tmp
  bool corrupt_first_pooled = false;  // --testonly_corrupt_pooled_output
  // The allocators, run one after the other (empty: glibc only).
  std::vector<AllocatorChoice> allocators;
};

// Runs 2 x options.repeat runs per allocator, appends each result to
// m->allocators[i].stock / .pooled (and the first allocator's to m->stock /
// m->pooled too) and each comparison to m (compared_runs, compared_blocks,
// identical and the first difference). Stops at the first error.
absl::Status RunAlternating(ModeRuns& runs, const AlternatingOptions& options, ModeReport* m);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ALTERNATING_RUNNER_H_
