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
//     absl::StatusOr<std::unique_ptr<Context>> Create(const Key&, AllocationStats*);
//     absl::Status Reset(Context&);      // back to "freshly created"
//     size_t BytesHeld(const Context&);  // library bytes it holds now
//   };
//
// Layers (a thread-striped front, after folly's core-local pool, over a backing pool):
// pool/thread_front.h is the lock-free front (a slot per stripe of threads, per-thread statistics);
// pool/idle_lists.h the records, per-key idle lists and their ages behind an absl::Mutex (the slow
// path).
//
// Contract:
//  - Acquire() hands out a Lease: a unique_ptr whose deleter returns the
//    context. A returned context is Reset() before it becomes idle (outside
//    any lock), so no state leaks from one user to the next; a context whose
//    reset fails is destroyed.
//  - Idle contexts are reused newest first (LIFO: exactly so within a
//    thread). Contexts are created and destroyed outside the lock.
//  - A lease + return that hits the thread's stripe slot does 2 atomic
//    read-modify-writes (the slot exchanges), takes no lock, reads no clock
//    and allocates nothing. One lease in kMaintenanceLeases per thread also
//    reads the clock, to run the expiry sweep when it is due.
//  - The cap (`max_retained_per_key`; users' OPTIONS files spell the
//    option max_idle_per_key): a key *retains* at most that many contexts,
//    idle ones (slots included) and leased ones that were retained before (a context leased from a
//    slot keeps its place, so its return needs no count). A context returned to a full key is
//    destroyed. 0 retains nothing: every Acquire creates, every return destroys, as stock RocksDB
//    does (what the faces' option value 0 gives, rocksdb_plugin/options.h). A smaller cap
//    (SetOptions) frees the coldest idle contexts now and sheds retained ones as they come back.
//  - Invariants (ROCKPOOL_DCHECK in tests and sanitizer builds,
//    compression/debug_check.h). Always: an idle context is retained; a
//    key's listed idle contexts <= its retained count; a lease names its
//    pool entry; Unpark(Park(lease)) is the same lease. When quiescent
//    (ContextPoolTesting::CheckQuiescent, context_pool_testing.h): created - destroyed == idle + in
//    use, idle bytes are the idle contexts' bytes, and idle <= retained <= cap per key, except that
//    retained may exceed the cap after a shrink until the extra leases come back, and (transiently)
//    while Retain's increment races.
//  - Expiry: a context idle at least `idle_timeout` is destroyed by the next
//    sweep, never earlier, late by at most one sweep (every idle_timeout/4,
//    on slow paths and maintenance leases; ReleaseExpired() sweeps now).
//  - Statistics: exact when quiescent. peak_in_use is sampled on leases that
//    miss the slot: a lower bound when several threads hit slots at once.
//    peak_retained_bytes is exact for the bytes as recorded at each return
//    (pool_options.h), and so never below the peak of idle_bytes.
//  - The pool must outlive every Lease it handed out. Thread-safe.
//  - No exceptions: failures (allocation included) are absl::Status; no
//    pool operation allocates except to create a context or a new key.
//    Construction does not throw either: a pool that could not allocate
//    its statistics or stripe slots refuses every lease
//    (ResourceExhausted), as when a context cannot be created.
#ifndef ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_
#define ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "compression/annotated_mutex.h"
#include "compression/counting_allocator.h"
#include "compression/debug_check.h"
#include "compression/pool/high_water.h"
#include "compression/pool/idle_lists.h"
#include "compression/pool/pool_options.h"
#include "compression/pool/thread_front.h"

namespace rockpool {

template <typename Policy>
class ContextPool {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  // Leases per thread between two looks at the clock on the fast path.
  static constexpr uint64_t kMaintenanceLeases = 256;

 private:
  using EntryT = pool_internal::Entry<Context, Key>;
  using KeyStateT = pool_internal::KeyState<Context, Key>;
  using Chain = pool_internal::EntryChain<Context, Key>;
  using Lists = pool_internal::IdleLists<Context, Key>;
  using Front = pool_internal::StripeFront<EntryT>;
  using Counter = pool_internal::Counter;

 public:
  // The Lease deleter: gives the context back to its pool.
  class Returner {
   public:
    Returner() = default;
    Returner(ContextPool* pool, EntryT* entry) : pool_(pool), entry_(entry) {}
    void operator()(Context* context) const {
      if (pool_ == nullptr) return;
      ROCKPOOL_DCHECK(entry_ != nullptr && entry_->context.get() == context);
      pool_->Return(entry_);
    }
    const Key& key() const { return entry_->key_state->key; }

   private:
    friend class ContextPool;
    ContextPool* pool_ = nullptr;
    EntryT* entry_ = nullptr;
  };
  using Lease = std::unique_ptr<Context, Returner>;

  explicit ContextPool(PoolOptions options = {}, Policy policy = {})
      : policy_(std::move(policy)),
        options_(options),
        epochs_(options.now()),
        now_(options.now),
        cap_(options.max_retained_per_key) {}
  ContextPool(const ContextPool&) = delete;
  ContextPool& operator=(const ContextPool&) = delete;
  ~ContextPool() {
    Trim();
    ROCKPOOL_DCHECK(stats().in_use == 0);  // the pool outlives its leases
  }

  // A reset context for `key`: the newest idle one, or a new one.
  ABSL_ATTRIBUTE_ALWAYS_INLINE absl::StatusOr<Lease> Acquire(const Key& key) {
    const size_t shard = pool_internal::ThreadShard();
    if (EntryT* entry = front_.Take(shard)) {
      if (pool_internal::SameKey(entry->key_state->key, key)) {
        counters_.Add(shard, Counter::kIdleBytesRemoved, entry->bytes);
        if (counters_.Add(shard, Counter::kLeases, 1) % kMaintenanceLeases == 0) MaybeSweep();
        return Lease(entry->context.get(), Returner(this, entry));
      }
      if (!front_.PutBack(shard, entry)) PushIdle(entry);  // another key's
    }
    return AcquireSlow(shard, key);
  }

  // Parkable contexts: the lease as a bare pointer, still leased (Unpark).
  Context* Park(Lease lease) {
    static_assert(std::is_base_of_v<Parkable, Context>, "Park() needs a Parkable context");
    ROCKPOOL_DCHECK(lease == nullptr || (!lease->parked_ && lease->pool_ == this &&
                                         lease.get_deleter().entry_->context.get() == lease.get()));
    Context* context = lease.release();
    if (context != nullptr) {
      context->parked_ = true;
      context->discard_ = false;
    }
    return context;
  }

  // The lease of a context Park() returned (empty if not parked or not ours).
  Lease Unpark(Context* context) {
    static_assert(std::is_base_of_v<Parkable, Context>, "Unpark() needs a Parkable context");
    if (context == nullptr || !context->parked_ || context->pool_ != this) return Lease();
    context->parked_ = false;
    EntryT* entry = static_cast<EntryT*>(context->entry_);
    ROCKPOOL_DCHECK(entry != nullptr && entry->context.get() == context);
    return Lease(context, Returner(this, entry));
  }

  // Destroys a leased context its user changed in a way Reset() cannot undo
  // (e.g. zstd worker threads) instead of returning it. Accepts an empty lease.
  void Discard(Lease lease) {
    if (lease == nullptr) return;
    EntryT* entry = lease.get_deleter().entry_;
    lease.release();
    const size_t shard = pool_internal::ThreadShard();
    counters_.Add(shard, Counter::kReleases, 1);
    Unretain(entry);
    Destroy(shard, entry);
  }

  // Destroys every idle context. Returns how many.
  size_t Trim() {
    Chain doomed;
    {
      AnnotatedMutexLock lock(&mu_);
      lists_.TakeAll(&doomed);
      ForEachSlotEntry([&](size_t, EntryT* entry) { doomed.Add(entry); });
    }
    return ForgetAndDestroy(doomed);
  }

  // Destroys now the contexts idle at least idle_timeout. Returns how many.
  size_t ReleaseExpired() {
    Chain expired;
    {
      AnnotatedMutexLock lock(&mu_);
      SweepLocked(options_.now(), &expired);
    }
    return ForgetAndDestroy(expired);
  }

  // Replaces the options; keys over a new cap shrink now (coldest first).
  void SetOptions(const PoolOptions& options) {
    Chain doomed;
    {
      AnnotatedMutexLock lock(&mu_);
      if (options.now != options_.now) epochs_.Restart(options.now());
      options_ = options;
      cap_.store(options.max_retained_per_key, std::memory_order_relaxed);
      now_.store(options.now, std::memory_order_relaxed);
      next_sweep_nanos_.store(INT64_MIN, std::memory_order_relaxed);
      SlotsToListsLocked();  // so the shrink sees every idle context
      lists_.TakeOverCap(options.max_retained_per_key, &doomed);
    }
    ForgetAndDestroy(doomed);
  }

  PoolOptions options() const {
    AnnotatedMutexLock lock(&mu_);
    return options_;
  }

  PoolStats stats() const {
    const pool_internal::ShardCounters::Sums sums = counters_.Sum();
    auto sum = [&](Counter c) { return sums[static_cast<size_t>(c)]; };
    auto difference = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
    PoolStats s;
    s.created = sum(Counter::kCreated);
    s.reused = difference(sum(Counter::kLeases), s.created);
    s.destroyed = sum(Counter::kDestroyed);
    s.reset_failures = sum(Counter::kResetFailures);
    s.in_use = difference(sum(Counter::kLeases), sum(Counter::kReleases));
    s.idle = difference(s.created, s.destroyed + s.in_use);
    s.peak_in_use = high_water_.peak_in_use();
    s.idle_bytes = difference(sum(Counter::kIdleBytesAdded), sum(Counter::kIdleBytesRemoved));
    s.retained_bytes = high_water_.retained_bytes();
    s.peak_retained_bytes = high_water_.peak_retained_bytes();
    s.library = allocation_stats_.Read();
    return s;
  }

  Policy& policy() { return policy_; }

 private:
  friend class ContextPoolTesting;  // context_pool_testing.h

  ABSL_ATTRIBUTE_NOINLINE
  absl::StatusOr<Lease> AcquireSlow(size_t shard, const Key& key) {
    if (ABSL_PREDICT_FALSE(!usable_)) {
      return absl::ResourceExhaustedError("context pool: out of memory when it was built");
    }
    Chain expired;
    EntryT* entry = nullptr;
    KeyStateT* key_state = nullptr;
    {
      AnnotatedMutexLock lock(&mu_);
      SweepIfDueLocked(&expired);
      key_state = lists_.FindOrAdd(key);
      if (key_state != nullptr) entry = lists_.PopNewest(key_state);
    }
    ForgetAndDestroy(expired);
    if (key_state == nullptr) return absl::ResourceExhaustedError("context pool: out of memory");
    if (entry == nullptr) entry = StealFromSlots(key);
    if (entry != nullptr) {
      counters_.Add(shard, Counter::kIdleBytesRemoved, entry->bytes);
      return LeaseOutSlow(shard, entry);
    }

    absl::StatusOr<std::unique_ptr<Context>> created = policy_.Create(key, &allocation_stats_);
    if (!created.ok()) return created.status();
    if (*created == nullptr) return absl::InternalError("context policy created a null context");
    entry = new (std::nothrow) EntryT{};
    if (entry == nullptr) return absl::ResourceExhaustedError("context pool: out of memory");
    entry->context = *std::move(created);
    entry->key_state = key_state;
    if constexpr (std::is_base_of_v<Parkable, Context>) {
      entry->context->entry_ = entry;
      entry->context->pool_ = this;
    }
    counters_.Add(shard, Counter::kCreated, 1);
    return LeaseOutSlow(shard, entry);
  }

  // A lease off the fast path: also samples peak_in_use.
  ABSL_ATTRIBUTE_NOINLINE
  Lease LeaseOutSlow(size_t shard, EntryT* entry) {
    counters_.Add(shard, Counter::kLeases, 1);
    const uint64_t leases = counters_.Total(Counter::kLeases);
    const uint64_t releases = counters_.Total(Counter::kReleases);
    const uint64_t in_use = leases > releases ? leases - releases : 0;
    high_water_.NoteInUse(in_use);
    return Lease(entry->context.get(), Returner(this, entry));
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE void Return(EntryT* entry) {
    const size_t shard = pool_internal::ThreadShard();
    counters_.Add(shard, Counter::kReleases, 1);
    if (absl::Status reset = policy_.Reset(*entry->context); ABSL_PREDICT_FALSE(!reset.ok())) {
      DestroyUnreset(shard, entry);
      return;
    }
    if (ABSL_PREDICT_FALSE(!Retain(entry))) {
      Destroy(shard, entry);
      return;
    }
    const size_t bytes = policy_.BytesHeld(*entry->context);
    if (ABSL_PREDICT_FALSE(bytes != entry->bytes)) ChangeRetainedBytes(entry->bytes, bytes);
    entry->bytes = bytes;
    entry->epoch = epoch_.load(std::memory_order_relaxed);
    counters_.Add(shard, Counter::kIdleBytesAdded, entry->bytes);
    // Newest goes to this thread's slot; whatever it displaces, to the list.
    if (EntryT* displaced = front_.Put(shard, entry)) PushIdle(displaced);
  }

  ABSL_ATTRIBUTE_NOINLINE void DestroyUnreset(size_t shard, EntryT* entry) {
    counters_.Add(shard, Counter::kResetFailures, 1);
    Unretain(entry);
    Destroy(shard, entry);
  }

  // Whether the key keeps `entry` (it counts in the key's retained contexts
  // afterwards); false: the caller destroys it.
  bool Retain(EntryT* entry) {
    std::atomic<size_t>& retained = entry->key_state->retained;
    const size_t cap = cap_.load(std::memory_order_relaxed);
    if (entry->retained) {
      // Already counted: kept unless the cap shrank below the count.
      size_t count = retained.load(std::memory_order_relaxed);
      while (count > cap) {
        if (retained.compare_exchange_weak(count, count - 1, std::memory_order_relaxed)) {
          entry->retained = false;
          ChangeRetainedBytes(entry->bytes, 0);
          return false;
        }
      }
      return true;
    }
    if (retained.fetch_add(1, std::memory_order_relaxed) >= cap) {
      retained.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    entry->retained = true;
    return true;
  }

  void Unretain(EntryT* entry) {
    if (!entry->retained) return;
    entry->key_state->retained.fetch_sub(1, std::memory_order_relaxed);
    entry->retained = false;
    ChangeRetainedBytes(entry->bytes, 0);
  }

  // Off the fast path: a context joins, leaves or changes size rarely.
  ABSL_ATTRIBUTE_NOINLINE void ChangeRetainedBytes(size_t from, size_t to) {
    high_water_.ChangeRetainedBytes(from, to);
  }

  ABSL_ATTRIBUTE_NOINLINE
  void PushIdle(EntryT* entry) {
    Chain expired;
    {
      AnnotatedMutexLock lock(&mu_);
      lists_.Push(entry);
      SweepIfDueLocked(&expired);
    }
    ForgetAndDestroy(expired);
  }

  void SlotsToListsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ForEachSlotEntry([&](size_t, EntryT* entry)
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { lists_.Push(entry); });
  }

  // Takes each stripe slot's entry, if any, and hands it to take(stripe, entry).
  template <typename Take>
  void ForEachSlotEntry(Take take) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (size_t stripe = 0; stripe < Front::kStripes; ++stripe) {
      if (EntryT* entry = front_.Take(stripe)) take(stripe, entry);
    }
  }

  // Before creating a context: an idle one of this key may sit in another
  // stripe's slot.
  EntryT* StealFromSlots(const Key& key) {
    for (size_t stripe = 0; stripe < Front::kStripes; ++stripe) {
      EntryT* entry = front_.Take(stripe);
      if (entry == nullptr) continue;
      if (pool_internal::SameKey(entry->key_state->key, key)) return entry;
      if (!front_.PutBack(stripe, entry)) PushIdle(entry);
    }
    return nullptr;
  }

  // The fast path's look at the clock, once per kMaintenanceLeases leases.
  ABSL_ATTRIBUTE_NOINLINE
  void MaybeSweep() {
    const absl::Time now = now_.load(std::memory_order_relaxed)();
    if (absl::ToUnixNanos(now) < next_sweep_nanos_.load(std::memory_order_relaxed)) return;
    Chain expired;
    {
      AnnotatedMutexLock lock(&mu_);
      SweepIfDueLocked(&expired);
    }
    ForgetAndDestroy(expired);
  }

  void SweepIfDueLocked(Chain* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (options_.idle_timeout == absl::InfiniteDuration()) {
      next_sweep_nanos_.store(INT64_MAX, std::memory_order_relaxed);
      return;
    }
    const absl::Time now = options_.now();
    if (absl::ToUnixNanos(now) < next_sweep_nanos_.load(std::memory_order_relaxed)) return;
    SweepLocked(now, out);
  }

  // Starts a new epoch and moves every expired idle context into `out`.
  void SweepLocked(absl::Time now, Chain* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (options_.idle_timeout == absl::InfiniteDuration()) return;
    next_sweep_nanos_.store(absl::ToUnixNanos(now + options_.idle_timeout / 4),
                            std::memory_order_relaxed);
    const uint64_t expired_below = epochs_.Sweep(now, options_.idle_timeout);
    epoch_.store(epochs_.current(), std::memory_order_relaxed);
    lists_.TakeExpired(expired_below, out);
    ForEachSlotEntry([&](size_t stripe, EntryT* entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      if (entry->epoch < expired_below) {
        out->Add(entry);
      } else if (!front_.PutBack(stripe, entry)) {
        lists_.Push(entry);  // the slot was refilled meanwhile
      }
    });
  }

  // Idle bookkeeping for idle entries leaving the pool, then destruction.
  ABSL_ATTRIBUTE_NOINLINE
  size_t ForgetAndDestroy(const Chain& doomed) {
    const size_t shard = pool_internal::ThreadShard();
    for (EntryT* entry = doomed.head; entry != nullptr;) {
      EntryT* next = entry->older;
      counters_.Add(shard, Counter::kIdleBytesRemoved, entry->bytes);
      Unretain(entry);
      Destroy(shard, entry);
      entry = next;
    }
    return doomed.size;
  }

  ABSL_ATTRIBUTE_NOINLINE void Destroy(size_t shard, EntryT* entry) {
    counters_.Add(shard, Counter::kDestroyed, 1);
    delete entry;  // frees the context
  }

  // What a lease touches, so a reader of Acquire() and Return() need not
  // open the pool's internal headers:
  //  - counters_ (pool/thread_front.h): Add(shard, counter, n) adds to the
  //    calling thread's own shard (a plain load and store) and returns its
  //    new value; stats() sums the shards.
  //  - front_ (pool/thread_front.h): one slot per stripe of threads holding
  //    the context the stripe returned last; Take(), Put() and PutBack() are
  //    one atomic exchange (or compare-exchange) each.
  //  - lists_ (pool/idle_lists.h, under mu_): every other idle context, per
  //    key newest first; FindOrAdd(key) is the key's record (null: out of
  //    memory), PopNewest() its newest idle entry, Push() adds one.
  Policy policy_;
  AllocationStats allocation_stats_;
  pool_internal::ShardCounters counters_;
  Front front_;
  // false: the constructor could not allocate the above (no lease is ever
  // handed out, so neither is written).
  const bool usable_ = counters_.ok() && front_.ok();

  mutable absl::Mutex mu_;
  PoolOptions options_ ABSL_GUARDED_BY(mu_);
  Lists lists_ ABSL_GUARDED_BY(mu_);
  pool_internal::SweepEpochs epochs_ ABSL_GUARDED_BY(mu_);

  // Read without the lock on the fast paths.
  std::atomic<uint64_t> epoch_{0};  // epochs_.current(), for stamping
  std::atomic<absl::Time (*)()> now_;
  std::atomic<size_t> cap_;
  std::atomic<int64_t> next_sweep_nanos_{INT64_MIN};
  pool_internal::HighWater high_water_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_CONTEXT_POOL_H_
