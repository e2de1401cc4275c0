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
//    any lock), so no state leaks from one user to the next; a context whose
//    reset fails is destroyed.
//  - Idle contexts are reused newest first (LIFO: exactly so within a
//    thread). They live in a per-key list guarded by an absl::Mutex, fronted
//    by one atomic slot per stripe of threads holding the context that
//    stripe returned last (folly's core-local front): the common
//    lease/return cycle of one thread takes no lock at all. Contexts are
//    created and destroyed outside the lock.
//  - At most `max_idle_per_key` idle contexts per key, slots included; a
//    context returned to a full key is destroyed. max_idle_per_key == 0
//    turns pooling off: every Acquire creates, every return destroys (the
//    stock behaviour).
//  - Contexts idle longer than `idle_timeout` are destroyed: lazily by pool
//    operations (checked at most every idle_timeout / 4) and by
//    ReleaseExpired(). Trim() destroys every idle context.
//  - Statistics are atomics: stats() never takes the lock.
//  - The pool must outlive every Lease it handed out. Thread-safe.
//  - No exceptions: failures (allocation included) are absl::Status.
#ifndef ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_
#define ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_

#include <array>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
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
  uint64_t created = 0;    // contexts created
  uint64_t reused = 0;     // leases served from idle contexts
  uint64_t destroyed = 0;  // contexts destroyed
  uint64_t reset_failures = 0;
  uint64_t idle = 0;         // idle contexts now
  uint64_t in_use = 0;       // leased contexts now
  uint64_t peak_in_use = 0;  // high-water mark of in_use
  uint64_t idle_bytes = 0;   // library bytes held by idle contexts
  AllocationCounts library;  // bytes and calls made by the codec library
};

namespace pool_internal {
// A small per-thread number, assigned round-robin on first use.
size_t ThreadStripe();
}  // namespace pool_internal

template <typename Policy>
class ContextPool {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

 private:
  struct KeyState;
  // One per live context, allocated with it; carries its idle bookkeeping.
  struct Entry {
    std::unique_ptr<Context> context;
    KeyState* key_state;
    absl::Time since;  // when it became idle
    size_t bytes = 0;  // library bytes held while idle
  };

 public:
  // The Lease deleter: gives the context back to its pool.
  class Returner {
   public:
    Returner() = default;
    Returner(ContextPool* pool, Entry* entry) : pool_(pool), entry_(entry) {}
    void operator()(Context*) const {
      if (pool_ != nullptr) pool_->Return(entry_);
    }
    const Key& key() const { return entry_->key_state->key; }

   private:
    friend class ContextPool;
    ContextPool* pool_ = nullptr;
    Entry* entry_ = nullptr;
  };
  using Lease = std::unique_ptr<Context, Returner>;

  explicit ContextPool(PoolOptions options = {}, Policy policy = {})
      : policy_(std::move(policy)), options_(options), cap_(options.max_idle_per_key) {}
  ContextPool(const ContextPool&) = delete;
  ContextPool& operator=(const ContextPool&) = delete;
  ~ContextPool() { Trim(); }

  // A reset context for `key`: the newest idle one, or a new one.
  absl::StatusOr<Lease> Acquire(const Key& key) {
    Slot& slot = slots_[pool_internal::ThreadStripe() % kStripes];
    if (slot.entry.load(std::memory_order_relaxed) != nullptr) {
      Entry* entry = slot.entry.exchange(nullptr, std::memory_order_acq_rel);
      if (entry != nullptr) {
        if (SameKey(entry->key_state->key, key)) return LeaseIdle(entry);
        Entry* empty = nullptr;  // another key's: put it back, or in its list
        if (!slot.entry.compare_exchange_strong(empty, entry, std::memory_order_acq_rel)) {
          PushToList(entry);
        }
      }
    }
    Entry* entry = nullptr;
    KeyState* key_state = nullptr;
    std::vector<Entry*> expired;
    {
      AnnotatedMutexLock lock(&mu_);
      CollectExpiredLocked(&expired);
      key_state = KeyStateLocked(key);
      if (!key_state->list.empty()) {
        entry = key_state->list.back();
        key_state->list.pop_back();
      }
    }
    DestroyAll(expired);
    if (entry == nullptr) entry = StealFromSlots(key);
    if (entry != nullptr) return LeaseIdle(entry);
    if (key_state == nullptr) return absl::ResourceExhaustedError("context pool: out of memory");

    absl::StatusOr<std::unique_ptr<Context>> created = policy_.Create(key, &allocation_stats_);
    if (!created.ok()) return created.status();
    if (*created == nullptr) return absl::InternalError("context policy created a null context");
    entry = new (std::nothrow) Entry{};
    if (entry == nullptr) return absl::ResourceExhaustedError("context pool: out of memory");
    entry->context = *std::move(created);
    entry->key_state = key_state;
    created_.fetch_add(1, std::memory_order_relaxed);
    return LeaseOut(entry);
  }

  // Destroys a leased context instead of returning it: for a context its
  // user changed in a way Reset() cannot undo (for example a zstd context
  // given worker threads). Counts as destroyed. Accepts an empty lease.
  void Discard(Lease lease) {
    if (lease == nullptr) return;
    Entry* entry = lease.get_deleter().entry_;
    lease.release();
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    Destroy(entry);
  }

  // Destroys every idle context. Returns how many.
  size_t Trim() {
    std::vector<Entry*> doomed;
    DrainSlots(&doomed);
    {
      AnnotatedMutexLock lock(&mu_);
      for (auto& [key, state] : keys_) {
        doomed.insert(doomed.end(), state->list.begin(), state->list.end());
        state->list.clear();
      }
    }
    for (Entry* entry : doomed) ForgetIdle(entry);
    DestroyAll(doomed);
    return doomed.size();
  }

  // Destroys idle contexts older than idle_timeout. Returns how many.
  size_t ReleaseExpired() {
    std::vector<Entry*> expired;
    {
      AnnotatedMutexLock lock(&mu_);
      next_expiry_check_ = absl::InfinitePast();
      CollectExpiredLocked(&expired);
    }
    DestroyAll(expired);
    return expired.size();
  }

  // Replaces the options; keys over the new cap shrink now (coldest first).
  void SetOptions(const PoolOptions& options) {
    std::vector<Entry*> doomed;
    std::vector<Entry*> slotted;
    DrainSlots(&slotted);
    {
      AnnotatedMutexLock lock(&mu_);
      options_ = options;
      cap_.store(options.max_idle_per_key, std::memory_order_relaxed);
      now_.store(options.now, std::memory_order_relaxed);
      next_expiry_check_ = absl::InfinitePast();
      for (Entry* entry : slotted) InsertByAgeLocked(entry);
      for (auto& [key, state] : keys_) {
        std::vector<Entry*>& list = state->list;
        while (list.size() > options.max_idle_per_key) {
          doomed.push_back(list.front());
          list.erase(list.begin());
        }
      }
    }
    for (Entry* entry : doomed) ForgetIdle(entry);
    DestroyAll(doomed);
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
  static constexpr size_t kStripes = 16;

  struct KeyState {
    explicit KeyState(const Key& k) : key(k) {}
    const Key key;
    std::vector<Entry*> list;     // guarded by mu_; oldest first
    std::atomic<size_t> idle{0};  // idle contexts of this key: list + slots
  };

  struct alignas(64) Slot {
    std::atomic<Entry*> entry{nullptr};
  };

  static bool SameKey(const Key& a, const Key& b) { return !(a < b) && !(b < a); }

  absl::StatusOr<Lease> LeaseIdle(Entry* entry) {
    ForgetIdle(entry);
    reused_.fetch_add(1, std::memory_order_relaxed);
    return LeaseOut(entry);
  }

  Lease LeaseOut(Entry* entry) {
    const uint64_t now_in_use = in_use_.fetch_add(1, std::memory_order_relaxed) + 1;
    uint64_t peak = peak_in_use_.load(std::memory_order_relaxed);
    while (now_in_use > peak &&
           !peak_in_use_.compare_exchange_weak(peak, now_in_use, std::memory_order_relaxed)) {
    }
    return Lease(entry->context.get(), Returner(this, entry));
  }

  // Idle bookkeeping for an entry leaving the idle set.
  // idle_count_ drops before the key's count frees a place (release, paired
  // with Return's acquire), so a concurrent Return cannot push idle_count_
  // past the caps even for a moment.
  void ForgetIdle(Entry* entry) {
    idle_count_.fetch_sub(1, std::memory_order_relaxed);
    idle_bytes_.fetch_sub(entry->bytes, std::memory_order_relaxed);
    entry->key_state->idle.fetch_sub(1, std::memory_order_release);
  }

  void Return(Entry* entry) {
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    if (absl::Status reset = policy_.Reset(*entry->context); !reset.ok()) {
      reset_failures_.fetch_add(1, std::memory_order_relaxed);
      Destroy(entry);
      return;
    }
    KeyState* key_state = entry->key_state;
    if (key_state->idle.fetch_add(1, std::memory_order_acquire) >=
        cap_.load(std::memory_order_relaxed)) {
      key_state->idle.fetch_sub(1, std::memory_order_relaxed);
      Destroy(entry);
      return;
    }
    entry->bytes = policy_.BytesHeld(*entry->context);
    const absl::Time since = now_.load(std::memory_order_relaxed)();
    entry->since = since;
    idle_count_.fetch_add(1, std::memory_order_relaxed);
    idle_bytes_.fetch_add(entry->bytes, std::memory_order_relaxed);
    // Newest goes to this thread's slot; whatever it displaces, to the list.
    // Once in the slot, `entry` belongs to the pool: another thread may lease
    // it, or Trim() free it, at any moment; do not touch it after this.
    Slot& slot = slots_[pool_internal::ThreadStripe() % kStripes];
    Entry* displaced = slot.entry.exchange(entry, std::memory_order_acq_rel);
    if (displaced != nullptr) PushToList(displaced);
    if (absl::ToUnixNanos(since) >= next_expiry_nanos_.load(std::memory_order_relaxed)) {
      ReleaseExpired();
    }
  }

  void PushToList(Entry* entry) {
    std::vector<Entry*> expired;
    {
      AnnotatedMutexLock lock(&mu_);
      InsertByAgeLocked(entry);
      CollectExpiredLocked(&expired);
    }
    DestroyAll(expired);
  }

  // Lists are ordered oldest first; a displaced slot entry is usually the
  // newest, so this scans from the back.
  void InsertByAgeLocked(Entry* entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<Entry*>& list = entry->key_state->list;
    auto it = list.end();
    while (it != list.begin() && (*(it - 1))->since > entry->since) --it;
    list.insert(it, entry);
  }

  KeyState* KeyStateLocked(const Key& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = keys_.find(key);
    if (it != keys_.end()) return it->second.get();
    // Key states live as long as the pool: entries point at them.
    std::unique_ptr<KeyState> state(new (std::nothrow) KeyState(key));
    if (state == nullptr) return nullptr;
    KeyState* raw = state.get();
    keys_.emplace(key, std::move(state));
    return raw;
  }

  // Before creating a context: an idle one of this key may sit in another
  // thread's slot. Entries are taken out before they are looked at (an
  // entry still in a slot may be leased and freed by its owner meanwhile).
  Entry* StealFromSlots(const Key& key) {
    for (size_t i = 0; i < kStripes; ++i) {
      Slot& slot = slots_[i];
      if (slot.entry.load(std::memory_order_relaxed) == nullptr) continue;
      Entry* entry = slot.entry.exchange(nullptr, std::memory_order_acq_rel);
      if (entry == nullptr) continue;
      if (SameKey(entry->key_state->key, key)) return entry;
      Entry* empty = nullptr;
      if (!slot.entry.compare_exchange_strong(empty, entry, std::memory_order_acq_rel)) {
        PushToList(entry);
      }
    }
    return nullptr;
  }

  void DrainSlots(std::vector<Entry*>* out) {
    for (size_t i = 0; i < kStripes; ++i) {
      Slot& slot = slots_[i];
      if (Entry* entry = slot.entry.exchange(nullptr, std::memory_order_acq_rel)) {
        out->push_back(entry);
      }
    }
  }

  // Moves idle contexts older than idle_timeout into `out`, from the lists
  // (cut at their front) and from the slots.
  void CollectExpiredLocked(std::vector<Entry*>* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (options_.idle_timeout == absl::InfiniteDuration()) {
      next_expiry_nanos_.store(INT64_MAX, std::memory_order_relaxed);
      return;
    }
    const absl::Time now = options_.now();
    if (now < next_expiry_check_) return;
    next_expiry_check_ = now + options_.idle_timeout / 4;
    next_expiry_nanos_.store(absl::ToUnixNanos(next_expiry_check_), std::memory_order_relaxed);
    const absl::Time cutoff = now - options_.idle_timeout;
    const size_t first = out->size();
    for (size_t i = 0; i < kStripes; ++i) {
      Slot& slot = slots_[i];
      if (slot.entry.load(std::memory_order_relaxed) == nullptr) continue;
      // Take the entry out before looking at it (as StealFromSlots does):
      // while it sits in the slot its owner may lease, rewrite or free it.
      Entry* entry = slot.entry.exchange(nullptr, std::memory_order_acq_rel);
      if (entry == nullptr) continue;
      if (entry->since <= cutoff) {
        out->push_back(entry);
        continue;
      }
      Entry* empty = nullptr;
      if (!slot.entry.compare_exchange_strong(empty, entry, std::memory_order_acq_rel)) {
        InsertByAgeLocked(entry);  // the slot was refilled meanwhile
      }
    }
    for (auto& [key, state] : keys_) {
      std::vector<Entry*>& list = state->list;
      size_t n = 0;
      while (n < list.size() && list[n]->since <= cutoff) out->push_back(list[n++]);
      list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(n));
    }
    for (size_t i = first; i < out->size(); ++i) ForgetIdle((*out)[i]);
  }

  void Destroy(Entry* entry) {
    destroyed_.fetch_add(1, std::memory_order_relaxed);
    delete entry;  // frees the context
  }

  void DestroyAll(const std::vector<Entry*>& doomed) {
    for (Entry* entry : doomed) Destroy(entry);
  }

  Policy policy_;
  AllocationStats allocation_stats_;
  // On the heap: an over-aligned array inside the pool would make every
  // object holding a pool over-aligned too, which ASan's fake stack does not
  // honour for stack objects.
  const std::unique_ptr<Slot[]> slots_{new Slot[kStripes]};

  mutable absl::Mutex mu_;
  PoolOptions options_ ABSL_GUARDED_BY(mu_);
  std::map<Key, std::unique_ptr<KeyState>> keys_ ABSL_GUARDED_BY(mu_);
  absl::Time next_expiry_check_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();

  // Read without the lock on the fast paths.
  std::atomic<absl::Time (*)()> now_{options_.now};
  std::atomic<size_t> cap_;
  std::atomic<int64_t> next_expiry_nanos_{INT64_MIN};

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
