// The pool's lock-free front: everything the lease/return fast path touches,
// indexed by the calling thread's shard, and the record a parked context
// keeps of its pool entry.
//
//   Parkable       the link inside a context that leaves the pool as a bare
//                  pointer (below).
//   ThreadShard()  a small per-thread index: the thread's statistics shard
//                  and (modulo kStripes) its stripe.
//   StripeFront    one atomic slot per stripe, holding the idle context its
//                  stripe returned last (thread-striped, after folly's core-local front: stripes
//                  are picked by thread, not by core). A lease that finds its key there and the
//                  return that refills it are one atomic exchange each; no lock.
//   ShardCounters  the pool's statistics, one single-writer shard per
//                  thread (a relaxed load and store, no read-modify-write),
//                  summed by stats(); pages of their own, resident only
//                  once written.
//
// Why an index that is handed back, not a counter that only grows: threads
// come and go (compaction and flush threads, a server's request threads). An
// index returns when its thread exits and goes to the next new thread, so a
// process never needs more shards than it has threads at once; the counts a
// shard holds are sums, so its next owner simply keeps adding.
//
// Contract:
//  - ThreadShard() < kThreadShards + 1. Indices below kThreadShards belong
//    to one live thread at a time; kSharedShard is shared by every thread
//    beyond kThreadShards and by threads already running their thread_local
//    destructors, and is written with atomic read-modify-writes.
//  - The hand-over of an index happens-before its next owner's first use (an
//    absl::Mutex taken through AnnotatedMutexLock, which ThreadSanitizer
//    sees although Debian's Abseil is not built for it).
//  - Slots are shared (threads beyond kStripes share stripes; the pool's slow
//    paths look at every slot), so an entry is always taken out of a slot
//    (exchanged for nullptr) before anyone reads it.
//  - Counter sums are monotonic; gauges are differences of sums, exact when
//    the pool is quiescent (while threads work, a sum may lag or lead by
//    their in-flight operations).
#ifndef ROCKPOOL_COMPRESSION_POOL_THREAD_FRONT_H_
#define ROCKPOOL_COMPRESSION_POOL_THREAD_FRONT_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "compression/fast_tls.h"

namespace rockpool {

template <typename Policy>
class ContextPool;

// Parkable (a record the pool keeps inside a context): a context that can leave the pool as a bare
// pointer and come back without a lookup. The legacy face hands RocksDB a ZSTD_CCtx* (or moves a
// zlib state into RocksDB's z_stream) and sees that pointer again only in the free call; a table
// from pointer to lease would cost a lock, a lookup and allocations per lease. Instead the context
// remembers its own pool entry: ContextPool::Park() turns a lease into its context, Unpark() turns
// the context back into the lease, each a few plain stores. A context type opts in by deriving from
// Parkable; the pool fills in the link when it creates the context. A parked context belongs to
// whoever holds the pointer; Park/Unpark are not synchronized (the holder's own hand-over orders
// them, as for any object it passes on).
class Parkable {
 public:
  bool parked() const { return parked_; }
  // The parker's note: destroy this context instead of pooling it when it
  // is unparked and returned (its user changed it in a way a reset cannot
  // undo). Cleared by Park().
  bool discard_when_unparked() const { return discard_; }
  void set_discard_when_unparked() { discard_ = true; }

 private:
  template <typename Policy>
  friend class ContextPool;
  void* entry_ = nullptr;       // the pool's Entry
  const void* pool_ = nullptr;  // the ContextPool that created it
  bool parked_ = false;
  bool discard_ = false;
};

}  // namespace rockpool

namespace rockpool::pool_internal {

// ---------------------------------------------------------------- shards

inline constexpr size_t kThreadShards = 256;
inline constexpr size_t kSharedShard = kThreadShards;

// -1 until the thread's first pool operation. Constant-initialized, so a
// read is a plain TLS load (no guard, no wrapper call).
extern ROCKPOOL_FAST_TLS int32_t tls_thread_shard;

// Slow path of ThreadShard(): hands this thread an index.
size_t AssignThreadShard();

inline size_t ThreadShard() {
  const int32_t shard = tls_thread_shard;
  return shard >= 0 ? static_cast<size_t>(shard) : AssignThreadShard();
}

// One more than the highest index ever handed out: a reader sums shards
// [0, ThreadShardsInUse()) and kSharedShard.
size_t ThreadShardsInUse();

// ---------------------------------------------------------------- slots

template <typename EntryT>
class StripeFront {
 public:
  static constexpr size_t kStripes = 16;

  // Never throws: if the slots cannot be allocated, ok() is false and every
  // slot reads empty (a shared, never written set); the owner must then put
  // nothing in them (ContextPool refuses every lease).
  StripeFront() : slots_(new (std::nothrow) Slot[kStripes]) {
    if (slots_ == nullptr) slots_ = NoSlots();
  }
  ~StripeFront() {
    if (ok()) delete[] slots_;
  }
  StripeFront(const StripeFront&) = delete;
  StripeFront& operator=(const StripeFront&) = delete;

  bool ok() const { return slots_ != NoSlots(); }

  // Takes the entry out of `stripe`'s slot if one is there; nullptr if not.
  EntryT* Take(size_t stripe) {
    std::atomic<EntryT*>& slot = slots_[stripe % kStripes].entry;
    if (slot.load(std::memory_order_relaxed) == nullptr) return nullptr;
    return slot.exchange(nullptr, std::memory_order_acq_rel);
  }

  // Puts `entry` in `stripe`'s slot; returns what it displaced (or nullptr).
  // Afterwards `entry` belongs to the pool: do not touch it.
  EntryT* Put(size_t stripe, EntryT* entry) {
    return slots_[stripe % kStripes].entry.exchange(entry, std::memory_order_acq_rel);
  }

  // Puts back an entry Take() took, if the slot is still empty; returns
  // false (entry still the caller's) when it was refilled meanwhile.
  bool PutBack(size_t stripe, EntryT* entry) {
    EntryT* empty = nullptr;
    return slots_[stripe % kStripes].entry.compare_exchange_strong(empty, entry,
                                                                   std::memory_order_acq_rel);
  }

  // What `stripe`'s slot holds, without taking it: only for a quiescent
  // pool (ContextPoolTesting::CheckQuiescent), where nobody else touches slots.
  const EntryT* PeekQuiescent(size_t stripe) const {
    return slots_[stripe % kStripes].entry.load(std::memory_order_acquire);
  }

 private:
  struct alignas(64) Slot {
    std::atomic<EntryT*> entry{nullptr};
  };
  static Slot* NoSlots() {
    static Slot none[kStripes];  // constant-initialized; only ever read
    return none;
  }
  // On the heap: an over-aligned member would make every pool (and every
  // object holding one) over-aligned, which ASan's fake stack does not honour.
  Slot* slots_;
};

// ---------------------------------------------------------------- counters

enum class Counter : size_t {
  kCreated,
  kDestroyed,
  kResetFailures,
  kLeases,    // every lease handed out (reused = leases - created)
  kReleases,  // every lease ended (returned or discarded)
  kIdleBytesAdded,
  kIdleBytesRemoved,
  kCount,
};

// The shards live in pages of their own, mapped at construction and left
// untouched until a thread counts: the kernel gives a page memory when it is
// first written, so a pool costs one page for its first 64 threads' shards
// and nothing if it is never used (a process that compresses only zlib
// still has zstd's and LZ4's pools). Allocated with new and zeroed, the
// 16 KiB of each pool were all resident, used or not.
class ShardCounters {
 public:
  using Sums = std::array<uint64_t, static_cast<size_t>(Counter::kCount)>;

  // Never throws: if neither the mapping nor the fallback allocation
  // succeeds, ok() is false, every sum reads 0, and Add() must not be called
  // (ContextPool refuses every lease, so nothing is ever counted).
  ShardCounters();
  ~ShardCounters();
  ShardCounters(const ShardCounters&) = delete;
  ShardCounters& operator=(const ShardCounters&) = delete;

  bool ok() const { return shards_ != nullptr; }

  // Adds `n` to counter `c` of `shard` (the caller's ThreadShard()); returns
  // the shard's new value.
  uint64_t Add(size_t shard, Counter c, uint64_t n) {
    std::atomic_ref<uint64_t> cell(shards_[shard].cells[static_cast<size_t>(c)]);
    if (shard == kSharedShard) return cell.fetch_add(n, std::memory_order_relaxed) + n;
    const uint64_t value = cell.load(std::memory_order_relaxed) + n;
    cell.store(value, std::memory_order_relaxed);
    return value;
  }

  // One counter summed over the shards.
  uint64_t Total(Counter c) const {
    if (!ok()) return 0;
    uint64_t total = Read(kSharedShard, static_cast<size_t>(c));
    const size_t in_use = ThreadShardsInUse();
    for (size_t shard = 0; shard < in_use; ++shard) total += Read(shard, static_cast<size_t>(c));
    return total;
  }

  Sums Sum() const {
    Sums sums{};
    if (!ok()) return sums;
    const size_t in_use = ThreadShardsInUse();
    for (size_t shard = 0; shard <= kThreadShards; ++shard) {
      if (shard >= in_use && shard != kSharedShard) continue;
      for (size_t c = 0; c < sums.size(); ++c) sums[c] += Read(shard, c);
    }
    return sums;
  }

  // How many of the shards' pages are in memory (mincore); -1 for the
  // fallback allocation, no shards at all, or if mincore fails.
  int ResidentPagesForTesting() const;

 private:
  // Plain integers, read and written through std::atomic_ref: zeroed pages
  // are already valid shards, so nothing is written (and no page touched)
  // at construction.
  struct alignas(64) Shard {
    uint64_t cells[static_cast<size_t>(Counter::kCount)];
  };
  static constexpr size_t kBytes = sizeof(Shard) * (kThreadShards + 1);

  uint64_t Read(size_t shard, size_t c) const {
    return std::atomic_ref<uint64_t>(shards_[shard].cells[c]).load(std::memory_order_relaxed);
  }

  Shard* shards_ = nullptr;
  bool mapped_ = false;  // false: the fallback, allocated with new
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_THREAD_FRONT_H_
