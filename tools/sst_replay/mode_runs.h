// The child processes behind each mode's alternating stock/pooled runs
// (alternating_runner.h's ModeRuns): a run writes its job, runs this
// executable as a child, reads the result and keeps the outputs to compare.
//   BlocksRuns      framed files of compressed blocks, compared record by record
//   CompactionRuns  scratch DBs, compared data block by data block (and blob
//                   record by blob record)
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_MODE_RUNS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_MODE_RUNS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/alternating_runner.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/report.h"
#include "tools/sst_replay/runner.h"
#include "tools/sst_replay/scratch.h"

namespace rockpool::replay {

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
