// The pool's statistics, kept per thread so that the lease/return fast path
// needs no atomic read-modify-write: each thread adds to its own shard with a
// relaxed load and store (it is the only writer), and stats() sums the shards.
//
// Every field is a monotonic sum, so a shard handed from an exited thread to
// a new one keeps counting. Gauges are differences of sums (in use = leases -
// releases, idle bytes = added - removed), exact when the pool is quiescent;
// while threads work, a sum may lag or lead by their in-flight operations.
#ifndef ROCKPOOL_COMPRESSION_POOL_SHARD_COUNTERS_H_
#define ROCKPOOL_COMPRESSION_POOL_SHARD_COUNTERS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "compression/pool/thread_shard.h"

namespace rockpool::pool_internal {

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

class ShardCounters {
 public:
  using Sums = std::array<uint64_t, static_cast<size_t>(Counter::kCount)>;

  ShardCounters() = default;
  ShardCounters(const ShardCounters&) = delete;
  ShardCounters& operator=(const ShardCounters&) = delete;

  // Adds `n` to counter `c` of `shard` (the caller's ThreadShard()); returns
  // the shard's new value.
  uint64_t Add(size_t shard, Counter c, uint64_t n) {
    std::atomic<uint64_t>& cell = shards_[shard].cells[static_cast<size_t>(c)];
    if (shard == kSharedShard) return cell.fetch_add(n, std::memory_order_relaxed) + n;
    const uint64_t value = cell.load(std::memory_order_relaxed) + n;
    cell.store(value, std::memory_order_relaxed);
    return value;
  }

  // One counter summed over the shards.
  uint64_t Total(Counter c) const {
    uint64_t total =
        shards_[kSharedShard].cells[static_cast<size_t>(c)].load(std::memory_order_relaxed);
    const size_t in_use = ThreadShardsInUse();
    for (size_t shard = 0; shard < in_use; ++shard) {
      total += shards_[shard].cells[static_cast<size_t>(c)].load(std::memory_order_relaxed);
    }
    return total;
  }

  Sums Sum() const {
    Sums sums{};
    const size_t in_use = ThreadShardsInUse();
    for (size_t shard = 0; shard <= kThreadShards; ++shard) {
      if (shard >= in_use && shard != kSharedShard) continue;
      for (size_t c = 0; c < sums.size(); ++c) {
        sums[c] += shards_[shard].cells[c].load(std::memory_order_relaxed);
      }
    }
    return sums;
  }

 private:
  struct alignas(64) Shard {
    std::atomic<uint64_t> cells[static_cast<size_t>(Counter::kCount)] = {};
  };
  // On the heap: an over-aligned member would make every pool (and every
  // object holding one) over-aligned, which ASan's fake stack does not honour.
  const std::unique_ptr<Shard[]> shards_{new Shard[kThreadShards + 1]};
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_SHARD_COUNTERS_H_
