#include "tools/sst_replay/mode_runs.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/sst_replay/blob_compare.h"
#include "tools/sst_replay/plan.h"

namespace rockpool::replay {
namespace {

void RecordComparison(const Comparison& c, ModeReport* m) {
  ++m->compared_runs;
  m->compared_blocks = c.blocks;
  if (!c.identical && m->identical) {  // the first difference is the one reported
    m->identical = false;
    m->difference = c.difference;
  }
}

// Failures of the parent's own bookkeeping (reading outputs back, comparing,
// a test hook) are internal errors (exit 3), whatever the reader said.
absl::Status AsInternal(const absl::Status& s) {
  return s.ok() ? s : absl::InternalError(s.message());
}
template <typename T>
absl::StatusOr<T> AsInternal(absl::StatusOr<T> v) {
  if (v.ok()) return v;
  return absl::InternalError(v.status().message());
}

// What both modes' runs share: the job, run as a child process.
class ChildRuns : public ModeRuns {
 public:
  ChildRuns(const ChildContext& context, Job job, std::string mode)
      : context_(context), job_(std::move(job)), mode_(std::move(mode)) {}
  // The job names the allocator each child checks and the parent preloads.
  void UseAllocator(size_t index, const process::AllocatorChoice& allocator) override {
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

absl::StatusOr<RunResult> ChildRuns::RunJob(Strategy strategy, int rep, std::string output) {
  job_.strategy = strategy;
  job_.output = std::move(output);
  const std::string label =
      absl::StrCat(mode_, " ", StrategyName(strategy), " run ", rep + 1, "/", context_.repeat,
                   job_.allocator_preload.empty() ? "" : absl::StrCat(" under ", job_.allocator));
  const std::string base = context_.scratch->Path(absl::StrCat("run", (*context_.runs)++));
  absl::StatusOr<RunResult> result = RunChild(context_.self, job_, base + ".job", base + ".result",
                                              context_.bar, *context_.units_done, label);
  *context_.units_done += 1;
  if (!result.ok()) return AsInternal(result.status());
  if (result->error_code == 2) return absl::InvalidArgumentError(result->error);
  if (result->error_code != 0) return absl::InternalError(result->error);
  return result;
}

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
  RunOutput Latest() const override { return {latest_, {}, nullptr}; }
  void DropLatest() override { RemoveQuietly(latest_); }
  void DropReference() override { RemoveQuietly(reference_); }

 private:
  const std::vector<std::string> file_names_;
  std::string reference_;
  std::string latest_;
};

// One compaction run's scratch DB and its output files.
struct CompactionOutput {
  std::string dir;
  OutputList ssts;
  OutputList blobs;
};

class CompactionRuns : public ChildRuns {
 public:
  CompactionRuns(const ChildContext& context, Job job, ModeReport* m)
      : ChildRuns(context, std::move(job), "compaction"), m_(m) {}
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override;
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override;
  RunOutput Latest() const override { return {"", latest_.ssts, context_.read_options}; }
  void DropLatest() override { RemoveQuietly(latest_.dir); }
  void DropReference() override { RemoveQuietly(reference_.dir); }

 private:
  absl::Status AddOutputMetrics(RunResult* result) const;

  ModeReport* const m_;
  CompactionOutput reference_;
  CompactionOutput latest_;
};

// What the parent reads back of the output files: sizes, blocks and blobs.
absl::Status CompactionRuns::AddOutputMetrics(RunResult* result) const {
  absl::StatusOr<OutputSummary> summary = SummarizeOutputs(latest_.ssts, *context_.read_options);
  if (!summary.ok()) return AsInternal(summary.status());
  absl::StatusOr<BlobOutputSummary> blobs = SummarizeBlobOutputs(latest_.blobs);
  if (!blobs.ok()) return AsInternal(blobs.status());
  auto& metrics = result->metrics;
  metrics["uncompressed_bytes"] =
      static_cast<int64_t>(summary->uncompressed_bytes + blobs->uncompressed_bytes);
  metrics["stored_bytes"] = static_cast<int64_t>(summary->stored_bytes + blobs->stored_bytes);
  metrics["output_data_blocks"] = static_cast<int64_t>(summary->data_blocks);
  if (!latest_.blobs.empty()) {
    metrics["output_blobs"] = static_cast<int64_t>(blobs->blobs);
    metrics["output_blob_uncompressed_bytes"] = static_cast<int64_t>(blobs->uncompressed_bytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<RunResult> CompactionRuns::Run(Strategy strategy, int rep) {
  latest_.dir = OutputPath(strategy, rep, "");
  absl::StatusOr<RunResult> result = RunJob(strategy, rep, latest_.dir);
  if (!result.ok()) return result;
  std::tie(latest_.ssts, latest_.blobs) = SplitOutputs(result->outputs);
  if (absl::Status s = AddOutputMetrics(&*result); !s.ok()) return s;
  for (const std::string& note : result->notes) {
    if (std::find(m_->notes.begin(), m_->notes.end(), note) == m_->notes.end()) {
      m_->notes.push_back(note);
    }
  }
  if (reference_.dir.empty()) reference_ = latest_;
  return result;
}

absl::StatusOr<Comparison> CompactionRuns::CompareLatest(Strategy strategy) {
  absl::StatusOr<Comparison> c = AsInternal(CompareCompactionOutputs(
      reference_.ssts, latest_.ssts, *context_.read_options, StrategyName(strategy)));
  if (!c.ok() || !c->identical) return c;
  absl::StatusOr<Comparison> blobs =
      AsInternal(CompareBlobOutputs(reference_.blobs, latest_.blobs, StrategyName(strategy)));
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
        absl::StatusOr<RunResult> result = runs.Run(strategy, rep);
        if (!result.ok()) return result.status();
        (strategy == Strategy::kStock ? under.stock : under.pooled).push_back(*result);
        if (index == 0) {
          (strategy == Strategy::kStock ? m->stock : m->pooled).push_back(*std::move(result));
        }
        if (!have_reference) {
          have_reference = true;
          continue;
        }
        const PooledOutputHook hook = pooled_output_hook.load(std::memory_order_relaxed);
        if (hook != nullptr && strategy == Strategy::kPooled) {
          if (absl::Status s = AsInternal(hook(runs.Latest())); !s.ok()) return s;
        }
        absl::StatusOr<Comparison> c = runs.CompareLatest(strategy);
        if (!c.ok()) return c.status();
        RecordComparison(*c, m);
        if (!options.keep_outputs) runs.DropLatest();
      }
    }
  }
  if (!options.keep_outputs && have_reference) runs.DropReference();
  return absl::OkStatus();
}

}  // namespace rockpool::replay
