// One mode's runs, the middle of sst_replay's three layers (session above,
// runner.h's child processes below): `repeat` repetitions of a stock run and
// a pooled run, alternating which goes first (plan.h's StrategyAt), once per
// --allocator, one allocator after the other; the first run is the
// reference every later run's output, under any allocator, is compared
// with byte for byte. The --testonly_corrupt_pooled_output hook (a flag of
// test builds only, internal_flags.h) lives here too: it damages the first
// pooled output that gets compared, so the tests can see a difference
// reported. Each run writes its job, runs this executable as a child, reads
// the result and keeps the outputs to compare:
//   BlocksRuns      framed files of compressed blocks, compared record by record
//   CompactionRuns  scratch DBs, compared data block by data block (and blob
//                   record by blob record)
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_MODE_RUNS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_MODE_RUNS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/allocator.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/report.h"
#include "tools/sst_replay/runner.h"
#include "tools/sst_replay/scratch.h"

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


// What every run of one invocation shares (owned by the session).
struct ChildContext {
  std::string self;  // this executable
  const Scratch* scratch;
  ProgressBar* bar;
  double* units_done;  // progress, in runs
  int* runs;           // child runs so far: names their job and result files
  int repeat;
  const sst::SstReadOptions* read_options;
};

// Failures of the parent's own bookkeeping (reading outputs back, comparing,
// the test hook) are internal errors (exit 3), whatever the reader said.
absl::Status AsInternal(const absl::Status& s);
template <typename T>
absl::StatusOr<T> AsInternal(absl::StatusOr<T> v) {
  if (v.ok()) return v;
  return absl::InternalError(v.status().message());
}

class ChildRuns : public ModeRuns {
 public:
  ChildRuns(const ChildContext& context, Job job, std::string mode)
      : context_(context), job_(std::move(job)), mode_(std::move(mode)) {}
  // The job names the allocator each child checks and the parent preloads.
  void UseAllocator(size_t index, const AllocatorChoice& allocator) override {
    allocator_index_ = index;
    job_.allocator = allocator.name;
    job_.allocator_preload = allocator.preload;
  }

 protected:
  absl::StatusOr<RunResult> RunJob(Strategy strategy, int rep, std::string output);
  // Outputs of later allocators get the allocator's name: the first run's
  // output stays the reference.
  std::string OutputPath(Strategy strategy, int rep, std::string_view suffix) const {
    const std::string under = allocator_index_ > 0 ? absl::StrCat("-", job_.allocator) : "";
    return context_.scratch->Path(
        absl::StrCat(mode_, under, "-", StrategyName(strategy), "-", rep, std::string(suffix)));
  }

  const ChildContext context_;
  Job job_;
  const std::string mode_;
  size_t allocator_index_ = 0;
};

// blocks mode: framed files of compressed blocks, compared record by record.
class BlocksRuns : public ChildRuns {
 public:
  BlocksRuns(const ChildContext& context, Job job, std::vector<std::string> file_names)
      : ChildRuns(context, std::move(job), "blocks"), file_names_(std::move(file_names)) {}
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override {
    latest_ = OutputPath(strategy, rep, ".out");
    if (reference_.empty()) reference_ = latest_;
    return RunJob(strategy, rep, latest_);
  }
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override {
    return AsInternal(
        CompareFramedOutputs(reference_, latest_, file_names_, StrategyName(strategy)));
  }
  absl::Status CorruptLatest() override { return AsInternal(CorruptFirstFramedRecord(latest_)); }
  void DropLatest() override { RemoveQuietly(latest_); }
  void DropReference() override { RemoveQuietly(reference_); }

 private:
  const std::vector<std::string> file_names_;
  std::string reference_;
  std::string latest_;
};

// compaction mode: scratch DBs, compared data block by data block.
class CompactionRuns : public ChildRuns {
 public:
  CompactionRuns(const ChildContext& context, Job job, ModeReport* m)
      : ChildRuns(context, std::move(job), "compaction"), m_(m) {}
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override;
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override;
  absl::Status CorruptLatest() override {
    if (latest_.empty()) return absl::OkStatus();
    return AsInternal(CorruptFirstDataBlock(latest_.front().second, *context_.read_options));
  }
  void DropLatest() override { RemoveQuietly(latest_dir_); }
  void DropReference() override { RemoveQuietly(reference_dir_); }

 private:
  ModeReport* const m_;
  OutputList reference_;
  OutputList reference_blobs_;
  std::string reference_dir_;
  OutputList latest_;
  OutputList latest_blobs_;
  std::string latest_dir_;
};

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_MODE_RUNS_H_
