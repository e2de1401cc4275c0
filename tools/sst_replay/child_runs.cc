#include "tools/sst_replay/child_runs.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <tuple>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/process/measured_child.h"
#include "tools/process/progress_pipe.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/plan.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

// The child's result file; its error as a status (error_code 2: bad input,
// else internal), and an internal error when the child was killed, left no
// result or exited non-zero without an error in it.
absl::StatusOr<RunResult> ReadChildResult(int status, const std::string& result_path,
                                          const std::string& label) {
  const std::string run = absl::StrCat("child run (", label, ")");
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat(run, " was killed by signal ", WTERMSIG(status)));
  }
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  const std::string exited = absl::StrCat(run, " exited with code ", exit_code);
  absl::StatusOr<std::string> text = ReadTextFile(result_path);
  if (!text.ok()) return absl::InternalError(absl::StrCat(exited, " and left no result"));
  ROCKPOOL_ASSIGN_OR_RETURN(RunResult result, AsInternal(ParseResult(*text)));
  if (result.error_code == 2) return absl::InvalidArgumentError(result.error);
  if (result.error_code != 0) return absl::InternalError(result.error);
  if (exit_code != 0) return absl::InternalError(exited);
  return result;
}

// Writes `job` to `<base>.job`, runs the child (with the job's allocator
// preloaded), reads its `<base>.result` and adds what the parent measured of
// the whole child: felt_wall_ns, and wait4's felt_cpu_ns, felt_minor_faults
// and felt_major_faults. Errors as ReadChildResult's; the parent's own are
// internal. The run starts on the bar at *context.units_done (each run is
// one unit).
absl::StatusOr<RunResult> RunChild(const ChildContext& context, const Job& job,
                                   const std::string& base, const std::string& label) {
  const std::string job_path = base + ".job";
  const std::string result_path = base + ".result";
  ROCKPOOL_RETURN_IF_ERROR(AsInternal(ReplaceOwnFile(job_path, SerializeJob(job))));
  ::unlink(result_path.c_str());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return AsInternal(absl::ErrnoToStatus(errno, "pipe"));
  constexpr int kChildProgressFd = 3;
  process::ChildOptions child;
  child.argv = {context.self, "--internal_child", "--internal_job=" + job_path,
                "--internal_result=" + result_path,
                absl::StrCat("--internal_progress_fd=", kChildProgressFd)};
  // Each child configures rockpool itself (stock: measure_stock, pooled: the
  // pool options), so a user's ROCKPOOL_OPTIONS/ROCKPOOL_STATS must not
  // switch a stock child to pooling, nor have children overwrite a
  // statistics file. The allocator goes first in LD_PRELOAD, the user's
  // objects after it (the child checks that the allocator serves malloc).
  child.unset_prefixes = {"ROCKPOOL_"};
  child.preload = job.allocator_preload;
  // The child's stdout on our stderr (our stdout is the report's).
  child.fds = {{STDERR_FILENO, STDOUT_FILENO}, {fds[1], kChildProgressFd}};
  absl::StatusOr<process::ChildUsage> usage = process::RunMeasuredChild(child, [&] {
    ::close(fds[1]);
    fds[1] = -1;
    context.bar->Update(*context.units_done, label);
    process::FollowProgress(fds[0], [&](double fraction) {
      context.bar->Update(*context.units_done + fraction, label);
    });
  });
  if (fds[1] >= 0) ::close(fds[1]);
  ::close(fds[0]);
  if (!usage.ok()) return AsInternal(usage.status());
  ROCKPOOL_ASSIGN_OR_RETURN(RunResult result, ReadChildResult(usage->status, result_path, label));
  // What the user feels of the child (its peak RSS is its own figure,
  // felt_peak_rss_bytes).
  auto& m = result.metrics;
  m["felt_wall_ns"] = usage->wall_ns;
  m["felt_cpu_ns"] = usage->cpu_ns;
  m["felt_minor_faults"] = usage->minor_faults;
  m["felt_major_faults"] = usage->major_faults;
  return result;
}

// What both modes' runs share: the job, run as a child process, each run
// into a new output (a file or a directory, `suffix` ending its name) that
// the first run's stays the reference for.
class ChildRuns : public ModeRuns {
 public:
  ChildRuns(const ChildContext& context, Job job, std::string mode, std::string suffix)
      : context_(context),
        job_(std::move(job)),
        mode_(std::move(mode)),
        suffix_(std::move(suffix)) {}
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override;
  // The job names the allocator each child checks and the parent preloads.
  void UseAllocator(size_t index, const process::AllocatorChoice& allocator) override {
    allocator_index_ = index;
    job_.allocator = allocator.name;
    job_.allocator_preload = allocator.preload;
  }
  void DropLatest() override { RemoveQuietly(latest_); }
  void DropReference() override { RemoveQuietly(reference_); }

 protected:
  const ChildContext context_;
  Job job_;
  const std::string mode_;
  const std::string suffix_;
  size_t allocator_index_ = 0;
  std::string reference_;
  std::string latest_;
};

absl::StatusOr<RunResult> ChildRuns::Run(Strategy strategy, int rep) {
  // Outputs of later allocators get the allocator's name.
  const std::string under = allocator_index_ > 0 ? absl::StrCat("-", job_.allocator) : "";
  latest_ = context_.scratch->Path(
      absl::StrCat(mode_, under, "-", StrategyName(strategy), "-", rep, suffix_));
  if (reference_.empty()) reference_ = latest_;
  job_.strategy = strategy;
  job_.output = latest_;
  const std::string label =
      absl::StrCat(mode_, " ", StrategyName(strategy), " run ", rep + 1, "/", context_.repeat,
                   job_.allocator_preload.empty() ? "" : absl::StrCat(" under ", job_.allocator));
  const std::string base = context_.scratch->Path(absl::StrCat("run", (*context_.runs)++));
  absl::StatusOr<RunResult> result = RunChild(context_, job_, base, label);
  *context_.units_done += 1;
  return result;
}

class BlocksRuns : public ChildRuns {
 public:
  BlocksRuns(const ChildContext& context, Job job, std::vector<std::string> file_names)
      : ChildRuns(context, std::move(job), "blocks", ".out"), file_names_(std::move(file_names)) {}
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override {
    return AsInternal(
        CompareFramedOutputs(reference_, latest_, file_names_, StrategyName(strategy)));
  }
  RunOutput Latest() const override { return {latest_, {}, nullptr}; }

 private:
  const std::vector<std::string> file_names_;
};

// The output files in one compaction run's scratch DB.
struct CompactionOutput {
  OutputList ssts;
  OutputList blobs;
};

class CompactionRuns : public ChildRuns {
 public:
  CompactionRuns(const ChildContext& context, Job job, ModeReport* m)
      : ChildRuns(context, std::move(job), "compaction", ""), m_(m) {}
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override;
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override;
  RunOutput Latest() const override { return {"", latest_out_.ssts, context_.read_options}; }

 private:
  absl::Status AddOutputMetrics(RunResult* result) const;

  ModeReport* const m_;
  CompactionOutput reference_out_;
  CompactionOutput latest_out_;
};

// What the parent reads back of the output files: sizes, blocks and blobs.
absl::Status CompactionRuns::AddOutputMetrics(RunResult* result) const {
  ROCKPOOL_ASSIGN_OR_RETURN(const OutputSummary summary,
                            AsInternal(SummarizeOutputs(latest_out_.ssts, *context_.read_options)));
  ROCKPOOL_ASSIGN_OR_RETURN(const BlobOutputSummary blobs,
                            AsInternal(SummarizeBlobOutputs(latest_out_.blobs)));
  auto& metrics = result->metrics;
  metrics["uncompressed_bytes"] =
      static_cast<int64_t>(summary.uncompressed_bytes + blobs.uncompressed_bytes);
  metrics["stored_bytes"] = static_cast<int64_t>(summary.stored_bytes + blobs.stored_bytes);
  metrics["output_data_blocks"] = static_cast<int64_t>(summary.data_blocks);
  if (!latest_out_.blobs.empty()) {
    metrics["output_blobs"] = static_cast<int64_t>(blobs.blobs);
    metrics["output_blob_uncompressed_bytes"] = static_cast<int64_t>(blobs.uncompressed_bytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<RunResult> CompactionRuns::Run(Strategy strategy, int rep) {
  ROCKPOOL_ASSIGN_OR_RETURN(RunResult result, ChildRuns::Run(strategy, rep));
  std::tie(latest_out_.ssts, latest_out_.blobs) = SplitOutputs(result.outputs);
  ROCKPOOL_RETURN_IF_ERROR(AddOutputMetrics(&result));
  for (const std::string& note : result.notes) {
    if (!absl::c_linear_search(m_->notes, note)) m_->notes.push_back(note);
  }
  if (reference_ == latest_) reference_out_ = latest_out_;
  return result;
}

absl::StatusOr<Comparison> CompactionRuns::CompareLatest(Strategy strategy) {
  absl::StatusOr<Comparison> c = AsInternal(CompareCompactionOutputs(
      reference_out_.ssts, latest_out_.ssts, *context_.read_options, StrategyName(strategy)));
  if (!c.ok() || !c->identical) return c;
  absl::StatusOr<Comparison> blobs = AsInternal(
      CompareBlobOutputs(reference_out_.blobs, latest_out_.blobs, StrategyName(strategy)));
  if (!blobs.ok() || !blobs->identical) return blobs;
  c->blocks += blobs->blocks;
  return c;
}

}  // namespace

std::atomic<PooledOutputHook> pooled_output_hook{nullptr};

std::unique_ptr<ModeRuns> MakeBlocksRuns(const ChildContext& context, Job job,
                                         std::vector<std::string> file_names) {
  return std::make_unique<BlocksRuns>(context, std::move(job), std::move(file_names));
}

std::unique_ptr<ModeRuns> MakeCompactionRuns(const ChildContext& context, Job job, ModeReport* m) {
  return std::make_unique<CompactionRuns>(context, std::move(job), m);
}

absl::Status RunAlternating(ModeRuns& runs, const AlternatingOptions& options, ModeReport* m) {
  const std::vector<process::AllocatorChoice> allocators =
      options.allocators.empty() ? std::vector<process::AllocatorChoice>{{"glibc", ""}}
                                 : options.allocators;
  m->allocators.clear();
  for (const auto& a : allocators) m->allocators.push_back({a.name, a.preload, {}, {}});
  bool have_reference = false;
  for (size_t index = 0; index < allocators.size(); ++index) {
    runs.UseAllocator(index, allocators[index]);
    AllocatorRuns& under = m->allocators[index];
    for (int rep = 0; rep < options.repeat; ++rep) {
      for (int k = 0; k < 2; ++k) {
        const Strategy strategy = StrategyAt(rep, k);
        ROCKPOOL_ASSIGN_OR_RETURN(RunResult result, runs.Run(strategy, rep));
        (strategy == Strategy::kStock ? under.stock : under.pooled).push_back(result);
        if (index == 0) {
          (strategy == Strategy::kStock ? m->stock : m->pooled).push_back(std::move(result));
        }
        if (!have_reference) {
          have_reference = true;
          continue;
        }
        const PooledOutputHook hook = pooled_output_hook.load(std::memory_order_relaxed);
        if (hook != nullptr && strategy == Strategy::kPooled) {
          ROCKPOOL_RETURN_IF_ERROR(AsInternal(hook(runs.Latest())));
        }
        ROCKPOOL_ASSIGN_OR_RETURN(const Comparison c, runs.CompareLatest(strategy));
        ++m->compared_runs;
        m->compared_blocks = c.blocks;
        if (!c.identical && m->identical) {  // the first difference is the one reported
          m->identical = false;
          m->difference = c.difference;
        }
        if (!options.keep_outputs) runs.DropLatest();
      }
    }
  }
  if (!options.keep_outputs && have_reference) runs.DropReference();
  return absl::OkStatus();
}

}  // namespace rockpool::replay
