#include "compression/compression_pools.h"

namespace rockpool {

// Every pool compression_pools.h writes out is in the table, and no other.
#define ROCKPOOL_COUNT_POOL(...) +1
static_assert(0 ROCKPOOL_POOL_TABLE(ROCKPOOL_COUNT_POOL) == CompressionPools::kPools,
              "pool_table.h and CompressionPools list different pools");
#undef ROCKPOOL_COUNT_POOL

void Accumulate(PoolStats* a, const PoolStats& b) {
  a->created += b.created;
  a->reused += b.reused;
  a->destroyed += b.destroyed;
  a->reset_failures += b.reset_failures;
  a->idle += b.idle;
  a->in_use += b.in_use;
  a->peak_in_use += b.peak_in_use;
  a->idle_bytes += b.idle_bytes;
  a->retained_bytes += b.retained_bytes;
  // The sum of the pools' peaks: at least the peak of their sum.
  a->peak_retained_bytes += b.peak_retained_bytes;
  a->library += b.library;
}

void Accumulate(CompressionPoolsStats* a, const CompressionPoolsStats& b) {
#define ROCKPOOL_ACCUMULATE_POOL(name, ...) Accumulate(&a->name, b.name);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_ACCUMULATE_POOL)
#undef ROCKPOOL_ACCUMULATE_POOL
}

PoolStats CompressionPoolsStats::Total() const {
  PoolStats total;
#define ROCKPOOL_ADD_POOL(name, ...) Accumulate(&total, name);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_ADD_POOL)
#undef ROCKPOOL_ADD_POOL
  return total;
}

void CompressionPools::SetOptions(const PoolOptions& options) {
#define ROCKPOOL_SET_OPTIONS(name, ...) name##_.SetOptions(options);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_SET_OPTIONS)
#undef ROCKPOOL_SET_OPTIONS
}

size_t CompressionPools::Trim() {
  size_t freed = 0;
#define ROCKPOOL_TRIM(name, ...) freed += name##_.Trim();
  ROCKPOOL_POOL_TABLE(ROCKPOOL_TRIM)
#undef ROCKPOOL_TRIM
  return freed;
}

size_t CompressionPools::ReleaseExpired() {
  size_t freed = 0;
#define ROCKPOOL_RELEASE_EXPIRED(name, ...) freed += name##_.ReleaseExpired();
  ROCKPOOL_POOL_TABLE(ROCKPOOL_RELEASE_EXPIRED)
#undef ROCKPOOL_RELEASE_EXPIRED
  return freed;
}

CompressionPoolsStats CompressionPools::stats() const {
  CompressionPoolsStats s;
#define ROCKPOOL_READ_STATS(name, ...) s.name = name##_.stats();
  ROCKPOOL_POOL_TABLE(ROCKPOOL_READ_STATS)
#undef ROCKPOOL_READ_STATS
  return s;
}

}  // namespace rockpool
