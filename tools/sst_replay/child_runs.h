// The child runs, the last of the parent's three layers (sst_replay.cc's
// entry, session.h, this): one mode's `repeat` alternating stock and pooled
// runs per --allocator, each a child process of this very binary
// (/proc/self/exe with the hidden --internal_child flag, so whole-process
// figures belong to that run alone), every output compared byte for byte
// with the first run's (README.md beside this file, "How the code is laid
// out").
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/console/progress_bar.h"
#include "tools/process/allocator_choice.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/report.h"
#include "tools/sst_replay/scratch_room.h"

namespace rockpool::replay {

// The files a run wrote, as the seam below sees them.
struct RunOutput {
  std::string framed;                                 // blocks mode: the framed output
  OutputList ssts;                                    // compaction mode: the output SSTs
  const sst::SstReadOptions* read_options = nullptr;  // how to read `ssts`
};

// One mode's part. Each Run() produces a new output; RunAlternating asks for
// comparisons and clean-up of the latest one.
class ModeRuns {
 public:
  virtual ~ModeRuns() = default;
  // Runs `strategy` (repetition `rep`, 0-based) in a child process. Errors
  // carry the exit code's meaning (child_support.h's ExitCodeFor).
  virtual absl::StatusOr<RunResult> Run(Strategy strategy, int rep) = 0;
  // The latest output against the reference (the first run's).
  virtual absl::StatusOr<Comparison> CompareLatest(Strategy strategy) = 0;
  // The files of the latest output.
  virtual RunOutput Latest() const = 0;
  // The latest output / the reference output is no longer needed.
  virtual void DropLatest() = 0;
  virtual void DropReference() = 0;
  // The runs that follow are under allocator `index` of
  // AlternatingOptions::allocators.
  virtual void UseAllocator(size_t index, const process::AllocatorChoice& allocator) = 0;
};

struct AlternatingOptions {
  int repeat = 1;
  bool keep_outputs = false;  // --keep_tmp
  // The allocators, run one after the other (empty: glibc only).
  std::vector<process::AllocatorChoice> allocators;
};

// Runs 2 x options.repeat runs per allocator, appends each result to
// m->allocators[i].stock / .pooled (and the first allocator's to m->stock /
// m->pooled too) and each comparison to m (compared_runs, compared_blocks,
// identical and the first difference). Stops at the first error.
absl::Status RunAlternating(ModeRuns& runs, const AlternatingOptions& options, ModeReport* m);

// RunAlternating's one seam, for the test binary's hooks
// (child_runs_testing.cc): when set, every pooled output RunAlternating
// compares goes through it first; an error stops the runs. Null in
// sst_replay, which links nothing that sets it.
using PooledOutputHook = absl::Status (*)(const RunOutput& output);
extern std::atomic<PooledOutputHook> pooled_output_hook;

// What every run of one invocation shares (owned by the session).
struct ChildContext {
  std::string self;  // this executable
  const Scratch* scratch;
  console::ProgressBar* bar;
  double* units_done;  // progress, in runs
  int* runs;           // child runs so far: names their job and result files
  int repeat;
  const sst::SstReadOptions* read_options;
};

// blocks mode: framed files of compressed blocks (named by `file_names`,
// framed file index -> input path), compared record by record.
std::unique_ptr<ModeRuns> MakeBlocksRuns(const ChildContext& context, Job job,
                                         std::vector<std::string> file_names);

// compaction mode: scratch DBs, compared data block by data block and blob
// record by blob record. The children's notes are added to m->notes once.
std::unique_ptr<ModeRuns> MakeCompactionRuns(const ChildContext& context, Job job, ModeReport* m);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_CHILD_RUNS_H_
