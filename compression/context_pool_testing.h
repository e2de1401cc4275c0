// Test helpers that look inside a ContextPool (testonly: what ships has
// neither). A friend of the pool, so the audit reads the pool's own lists
// and slots instead of a copy of its bookkeeping.
#ifndef ROCKPOOL_COMPRESSION_CONTEXT_POOL_TESTING_H_
#define ROCKPOOL_COMPRESSION_CONTEXT_POOL_TESTING_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compression/context_pool.h"

namespace rockpool {

class ContextPoolTesting {
 public:
  // Idle contexts now, counted under the lock: never more than the key caps
  // allow, even while other threads lease and return (stats().idle is exact
  // only when quiescent: a returning context counts as idle until its
  // destruction is counted). Moves slot entries to the lists to count each
  // once.
  template <typename Policy>
  static size_t CountIdleNow(ContextPool<Policy>& pool) {
    AnnotatedMutexLock lock(&pool.mu_);
    pool.SlotsToListsLocked();
    return pool.lists_.ListedCount();
  }

  // On a quiescent pool (no operation running or shrink racing returns): OK
  // if the contract's books balance (context_pool.h), else why not.
  template <typename Policy>
  static absl::Status CheckQuiescent(const ContextPool<Policy>& pool) {
    using Front = typename ContextPool<Policy>::Front;
    using EntryT = typename ContextPool<Policy>::EntryT;
    const PoolStats s = pool.stats();
    AnnotatedMutexLock lock(&pool.mu_);
    const EntryT* slots[Front::kStripes];
    for (size_t i = 0; i < Front::kStripes; ++i) slots[i] = pool.front_.PeekQuiescent(i);
    std::string problems = pool.lists_.AuditQuiescent(
        slots, Front::kStripes, pool.options_.max_retained_per_key, s.in_use, s.idle, s.idle_bytes);
    // With nothing leased, every retained context is idle.
    if (s.in_use == 0 && s.retained_bytes != s.idle_bytes) {
      absl::StrAppend(&problems, "; retained contexts hold ", s.retained_bytes,
                      " bytes with none leased, idle ones ", s.idle_bytes);
    }
    if (s.peak_retained_bytes < s.retained_bytes) {
      absl::StrAppend(&problems, "; peak retained bytes ", s.peak_retained_bytes, " < now ",
                      s.retained_bytes);
    }
    if (problems.empty()) return absl::OkStatus();
    return absl::InternalError(absl::StrCat("context pool: ", problems.substr(2)));
  }
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_CONTEXT_POOL_TESTING_H_
