#include "tools/sst_replay/alternating_runner.h"

#include <utility>

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

}  // namespace

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
