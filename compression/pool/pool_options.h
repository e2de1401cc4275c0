// PoolOptions and PoolStats: what a ContextPool is configured with and
// what it reports (compression/context_pool.h has the contract they follow).
#ifndef ROCKPOOL_COMPRESSION_POOL_POOL_OPTIONS_H_
#define ROCKPOOL_COMPRESSION_POOL_POOL_OPTIONS_H_

#include <cstddef>
#include <cstdint>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "compression/counting_allocator.h"

namespace rockpool {

struct PoolOptions {
  // The defaults, here once for the faces' options and the tools.
  static constexpr size_t kDefaultMaxRetainedPerKey = 8;
  static constexpr uint64_t kDefaultIdleSeconds = 60;

  // Contexts retained per key, idle or leased (the contract's cap; users'
  // OPTIONS files spell it max_idle_per_key). 0 retains nothing: every
  // lease creates a context and every return destroys it, as stock RocksDB.
  size_t max_retained_per_key = kDefaultMaxRetainedPerKey;
  // Idle contexts older than this are freed (infinite: kept until Trim()).
  absl::Duration idle_timeout = absl::Seconds(static_cast<int64_t>(kDefaultIdleSeconds));
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
  uint64_t peak_in_use = 0;  // high-water mark of in_use (see the contract)
  uint64_t idle_bytes = 0;   // library bytes held by idle contexts
  // Library bytes held by the contexts the pool retains (idle ones, and
  // leased ones that come back to it), as of each one's last return, now
  // and at most at once. Retained contexts include every idle one, so the
  // peak bounds the peak of idle_bytes from above: what pooling can keep
  // that stock RocksDB would have freed. (The idle figure itself changes on
  // every lease and return, where the pool keeps only per-thread counters;
  // the retained one changes only when a context joins or leaves the pool or
  // grows, so its high-water mark costs the fast path nothing.)
  uint64_t retained_bytes = 0;
  uint64_t peak_retained_bytes = 0;
  AllocationCounts library;  // bytes and calls made by the codec library
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_POOL_POOL_OPTIONS_H_
