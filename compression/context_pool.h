// ContextPool: a bounded, keyed pool of codec contexts.
//
// Why: RocksDB creates and frees compression state per block (zlib) or per
// SST file (zstd); each context is 10^4..10^6 bytes. Reusing contexts removes
// that allocation churn. The pool is generic over a Policy that knows how to
// create, reset and size one kind of context:
//
//   struct Policy {
//     using Context = ...;  // owns its library state; freed by `delete`
//     using Key = ...;      // copyable, totally ordered (operator<)
//     absl::StatusOr<std::unique_ptr<Context>> Create(const Key&,
//                                                     AllocationStats*);
//     absl::Status Reset(Context&);          // back to "freshly created"
//     size_t BytesHeld(const Context&);      // library bytes it holds now
//   };
//
// Contract:
//  - Acquire() hands out a Lease: a unique_ptr whose deleter returns the
//    context. A returned context is Reset() before it becomes idle (outside
//    the lock), so no state leaks from one user to the next; a context whose
//    reset fails is destroyed.
//  - Idle contexts form a LIFO list per key (the warmest one is reused),
//    guarded by an absl::Mutex. Contexts are created and destroyed outside
//    the lock.
//  - At most `max_idle_per_key` idle contexts per key; a context returned to
//    a full list is destroyed. max_idle_per_key == 0 turns pooling off: every
//    Acquire creates, every return destroys (the stock behaviour).
//  - Contexts idle longer than `idle_timeout` are destroyed: lazily, by any
//    Acquire or return (checked at most every `idle_timeout / 4`), and by
//    ReleaseExpired(). Trim() destroys every idle context.
//  - Statistics are atomics: stats() never takes the lock.
//  - The pool must outlive every Lease it handed out. Thread-safe.
//  - No exceptions: failures (allocation included) are absl::Status.
#ifndef ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_
#define ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "compression/annotated_mutex.h"
#include "compression/counting_allocator.h"

namespace rockpool {

struct PoolOptions {
  // Idle contexts kept per key. 0 disables pooling.
  size_t max_idle_per_key = 8;
  // Idle contexts older than this are freed. absl::InfiniteDuration() keeps
  // them until Trim().
  absl::Duration idle_timeout = absl::Seconds(60);
  // Time source; tests substitute a fake clock.
  absl::Time (*now)() = &absl::Now;
};

struct PoolStats {
  uint64_t created = 0;      // contexts created
  uint64_t reused = 0;       // leases served from the idle list
  uint64_t destroyed = 0;    // contexts destroyed
  uint64_t reset_failures = 0;
  uint64_t idle = 0;         // idle contexts now
  uint64_t in_use = 0;       // leased contexts now
  uint64_t peak_in_use = 0;  // high-water mark of in_use
  uint64_t idle_bytes = 0;   // library bytes held by idle contexts
  AllocationCounts library;  // bytes and calls made by the codec library
};

template <typename Policy>
class ContextPool {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  // The Lease deleter: gives the context back to its pool.
  class Returner {
   public:
    Returner() = default;
    Returner(ContextPool* pool, Key key) : pool_(pool), key_(std::move(key)) {}
    void operator()(Context* context) const {
      if (pool_ != nullptr) pool_->Return(key_, std::unique_ptr<Context>(context));
    }
    const Key& key() const { return key_; }

   private:
    ContextPool* pool_ = nullptr;
    Key key_{};
  };
  using Lease = std::unique_ptr<Context, Returner>;

  explicit ContextPool(PoolOptions options = {}, Policy policy = {})
      : policy_(std::move(policy)), options_(options) {}
  ContextPool(const ContextPool&) = delete;
  ContextPool& operator=(const ContextPool&) = delete;
  ~ContextPool() { Trim(); }

  // A reset context for `key`: the newest idle one, or a new one.
  absl::StatusOr<Lease> Acquire(const Key& key) {
    std::unique_ptr<Context> context;
    std::vector<std::unique_ptr<Context>> expired;
    {
      AnnotatedMutexLock lock(&mu_);
      CollectExpiredLocked(&expired);
      auto it = idle_.find(key);
      if (it != idle_.end() && !it->second.empty()) {
        IdleContext& top = it->second.back();
        idle_bytes_.fetch_sub(top.bytes, std::memory_order_relaxed);
        context = std::move(top.context);
        it->second.pop_back();
        idle_count_.fetch_sub(1, std::memory_order_relaxed);
      }
    }
    DestroyAll(&expired);
    if (context != nullptr) {
      reused_.fetch_add(1, std::memory_order_relaxed);
    } else {
      absl::StatusOr<std::unique_ptr<Context>> created = policy_.Create(key, &allocation_stats_);
      if (!created.ok()) return created.status();
      if (*created == nullptr) return absl::InternalError("context policy created a null context");
      context = *std::move(created);
      created_.fetch_add(1, std::memory_order_relaxed);
    }
    NoteLeased();
    return Lease(context.release(), Returner(this, key));
  }

  // Destroys every idle context. Returns how many.
  size_t Trim() {
    std::vector<std::unique_ptr<Context>> doomed;
    {
      AnnotatedMutexLock lock(&mu_);
      for (auto& [key, list] : idle_) {
        for (IdleContext& idle : list) {
          idle_bytes_.fetch_sub(idle.bytes, std::memory_order_relaxed);
          doomed.push_back(std::move(idle.context));
        }
        list.clear();
      }
      idle_.clear();
      idle_count_.fetch_sub(doomed.size(), std::memory_order_relaxed);
    }
    const size_t n = doomed.size();
    DestroyAll(&doomed);
    return n;
  }

  // Destroys idle contexts older than idle_timeout. Returns how many.
  size_t ReleaseExpired() {
    std::vector<std::unique_ptr<Context>> expired;
    {
      AnnotatedMutexLock lock(&mu_);
      next_expiry_check_ = absl::InfinitePast();
      CollectExpiredLocked(&expired);
    }
    const size_t n = expired.size();
    DestroyAll(&expired);
    return n;
  }

  // Replaces the options; idle lists over the new cap shrink now.
  void SetOptions(const PoolOptions& options) {
    std::vector<std::unique_ptr<Context>> doomed;
    {
      AnnotatedMutexLock lock(&mu_);
      options_ = options;
      next_expiry_check_ = absl::InfinitePast();
      for (auto& [key, list] : idle_) {
        while (list.size() > options_.max_idle_per_key) {
          // Drop the coldest (front) first.
          idle_bytes_.fetch_sub(list.front().bytes, std::memory_order_relaxed);
          doomed.push_back(std::move(list.front().context));
          list.erase(list.begin());
          idle_count_.fetch_sub(1, std::memory_order_relaxed);
        }
      }
    }
    DestroyAll(&doomed);
  }

  PoolOptions options() const {
    AnnotatedMutexLock lock(&mu_);
    return options_;
  }

  PoolStats stats() const {
    PoolStats s;
    s.created = created_.load(std::memory_order_relaxed);
    s.reused = reused_.load(std::memory_order_relaxed);
    s.destroyed = destroyed_.load(std::memory_order_relaxed);
    s.reset_failures = reset_failures_.load(std::memory_order_relaxed);
    s.idle = idle_count_.load(std::memory_order_relaxed);
    s.in_use = in_use_.load(std::memory_order_relaxed);
    s.peak_in_use = peak_in_use_.load(std::memory_order_relaxed);
    s.idle_bytes = idle_bytes_.load(std::memory_order_relaxed);
    s.library = allocation_stats_.Read();
    return s;
  }

  Policy& policy() { return policy_; }

 private:
  struct IdleContext {
    std::unique_ptr<Context> context;
    absl::Time since;
    size_t bytes;
  };

  void Return(const Key& key, std::unique_ptr<Context> context) {
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    absl::Status reset = policy_.Reset(*context);  // outside the lock
    std::vector<std::unique_ptr<Context>> doomed;
    if (!reset.ok()) {
      reset_failures_.fetch_add(1, std::memory_order_relaxed);
      doomed.push_back(std::move(context));
    } else {
      const size_t bytes = policy_.BytesHeld(*context);
      AnnotatedMutexLock lock(&mu_);
      CollectExpiredLocked(&doomed);
      std::vector<IdleContext>& list = idle_[key];
      if (list.size() < options_.max_idle_per_key) {
        list.push_back(IdleContext{std::move(context), options_.now(), bytes});
        idle_count_.fetch_add(1, std::memory_order_relaxed);
        idle_bytes_.fetch_add(bytes, std::memory_order_relaxed);
      } else {
        doomed.push_back(std::move(context));
      }
    }
    DestroyAll(&doomed);
  }

  void NoteLeased() {
    const uint64_t now_in_use = in_use_.fetch_add(1, std::memory_order_relaxed) + 1;
    uint64_t peak = peak_in_use_.load(std::memory_order_relaxed);
    while (now_in_use > peak &&
           !peak_in_use_.compare_exchange_weak(peak, now_in_use, std::memory_order_relaxed)) {
    }
  }

  // Moves contexts idle for longer than idle_timeout into `out`. Idle lists
  // are ordered oldest first, so each list is cut at its front.
  void CollectExpiredLocked(std::vector<std::unique_ptr<Context>>* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (options_.idle_timeout == absl::InfiniteDuration()) return;
    const absl::Time now = options_.now();
    if (now < next_expiry_check_) return;
    next_expiry_check_ = now + options_.idle_timeout / 4;
    const absl::Time cutoff = now - options_.idle_timeout;
    for (auto& [key, list] : idle_) {
      size_t n = 0;
      while (n < list.size() && list[n].since <= cutoff) {
        idle_bytes_.fetch_sub(list[n].bytes, std::memory_order_relaxed);
        out->push_back(std::move(list[n].context));
        ++n;
      }
      list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(n));
      idle_count_.fetch_sub(n, std::memory_order_relaxed);
    }
  }

  void DestroyAll(std::vector<std::unique_ptr<Context>>* doomed) {
    destroyed_.fetch_add(doomed->size(), std::memory_order_relaxed);
    doomed->clear();
  }

  Policy policy_;
  AllocationStats allocation_stats_;

  mutable absl::Mutex mu_;
  PoolOptions options_ ABSL_GUARDED_BY(mu_);
  std::map<Key, std::vector<IdleContext>> idle_ ABSL_GUARDED_BY(mu_);
  absl::Time next_expiry_check_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();

  std::atomic<uint64_t> created_{0};
  std::atomic<uint64_t> reused_{0};
  std::atomic<uint64_t> destroyed_{0};
  std::atomic<uint64_t> reset_failures_{0};
  std::atomic<uint64_t> idle_count_{0};
  std::atomic<uint64_t> in_use_{0};
  std::atomic<uint64_t> peak_in_use_{0};
  std::atomic<uint64_t> idle_bytes_{0};
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_
