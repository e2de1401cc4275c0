#include "tools/sst_replay/mode_runs.h"

#include <algorithm>
#include <cstdint>
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


// A child's failure as a Status carrying its exit code's meaning.
absl::Status ChildError(int exit_code, const std::string& message) {
  return exit_code == 2 ? absl::InvalidArgumentError(message) : absl::InternalError(message);
}

}  // namespace

absl::Status AsInternal(const absl::Status& s) {
  return s.ok() ? s : absl::InternalError(s.message());
}

absl::StatusOr<RunResult> ChildRuns::RunJob(Strategy strategy, int rep, std::string output) {
  job_.strategy = strategy;
  job_.output = std::move(output);
  const std::string label =
      absl::StrCat(mode_, " ", StrategyName(strategy), " run ", rep + 1, "/", context_.repeat,
                   job_.allocator_preload.empty() ? "" : absl::StrCat(" under ", job_.allocator));
  const std::string base = context_.scratch->Path(absl::StrCat("run", (*context_.runs)++));
  absl::StatusOr<ChildRun> run = RunChild(context_.self, job_, base + ".job", base + ".result",
                                          context_.bar, *context_.units_done, label);
  *context_.units_done += 1;
  if (!run.ok()) return absl::InternalError(run.status().message());
  if (run->result.error_code != 0) {
    return ChildError(run->result.error_code, run->result.error);
  }
  return std::move(run->result);
}

absl::StatusOr<RunResult> CompactionRuns::Run(Strategy strategy, int rep) {
  latest_dir_ = OutputPath(strategy, rep, "");
  absl::StatusOr<RunResult> result = RunJob(strategy, rep, latest_dir_);
  if (!result.ok()) return result;
  std::tie(latest_, latest_blobs_) = SplitOutputs(result->outputs);
  absl::StatusOr<OutputSummary> summary = SummarizeOutputs(latest_, *context_.read_options);
  if (!summary.ok()) return absl::InternalError(summary.status().message());
  absl::StatusOr<BlobOutputSummary> blobs = SummarizeBlobOutputs(latest_blobs_);
  if (!blobs.ok()) return absl::InternalError(blobs.status().message());
  result->metrics["uncompressed_bytes"] =
      static_cast<int64_t>(summary->uncompressed_bytes + blobs->uncompressed_bytes);
  result->metrics["stored_bytes"] =
      static_cast<int64_t>(summary->stored_bytes + blobs->stored_bytes);
  result->metrics["output_data_blocks"] = static_cast<int64_t>(summary->data_blocks);
  if (!latest_blobs_.empty()) {
    result->metrics["output_blobs"] = static_cast<int64_t>(blobs->blobs);
    result->metrics["output_blob_uncompressed_bytes"] =
        static_cast<int64_t>(blobs->uncompressed_bytes);
  }
  for (const std::string& note : result->notes) {
    if (std::find(m_->notes.begin(), m_->notes.end(), note) == m_->notes.end()) {
      m_->notes.push_back(note);
    }
  }
  if (reference_dir_.empty()) {
    reference_dir_ = latest_dir_;
    reference_ = latest_;
    reference_blobs_ = latest_blobs_;
  }
  return result;
}

absl::StatusOr<Comparison> CompactionRuns::CompareLatest(Strategy strategy) {
  absl::StatusOr<Comparison> c = AsInternal(CompareCompactionOutputs(
      reference_, latest_, *context_.read_options, StrategyName(strategy)));
  if (!c.ok() || !c->identical) return c;
  // The rewritten blobs too, record by record.
  absl::StatusOr<Comparison> blobs =
      AsInternal(CompareBlobOutputs(reference_blobs_, latest_blobs_, StrategyName(strategy)));
  if (!blobs.ok() || !blobs->identical) return blobs;
  c->blocks += blobs->blocks;
  return c;
}

absl::Status RunAlternating(ModeRuns& runs, const AlternatingOptions& options, ModeReport* m) {
  const std::vector<AllocatorChoice> allocators =
      options.allocators.empty() ? std::vector<AllocatorChoice>{{"glibc", ""}} : options.allocators;
  m->allocators.clear();
  for (const AllocatorChoice& a : allocators) m->allocators.push_back({a.name, a.preload, {}, {}});
  bool have_reference = false;
  bool corrupted = false;
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
        if (options.corrupt_first_pooled && !corrupted && strategy == Strategy::kPooled) {
          corrupted = true;
          if (absl::Status s = runs.CorruptLatest(); !s.ok()) return s;
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
