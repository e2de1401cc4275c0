// The context pools rockpool runs (compression/pool_table.h lists them:
// zstd compress and decompress, deflate, inflate, LZ4 and LZ4HC streams),
// configured together, with one place to read their statistics. A face that
// needs more pools owns them (the legacy face's zstd size classes:
// rocksdb_plugin/legacy/runtime_internal.h).
#ifndef ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_
#define ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_

#include <cstddef>

#include "compression/codec_library.h"
#include "compression/context_pool.h"
#include "compression/lz4_contexts.h"
#include "compression/pool_table.h"
#include "compression/zlib_contexts.h"
#include "compression/zstd_contexts.h"

namespace rockpool {

struct CompressionPoolsStats {
#define ROCKPOOL_POOL_STATS_FIELD(name, ...) PoolStats name;
  ROCKPOOL_POOL_TABLE(ROCKPOOL_POOL_STATS_FIELD)
#undef ROCKPOOL_POOL_STATS_FIELD
  // Field-wise sum over the table's pools (peak_in_use is the sum of the
  // peaks).
  PoolStats Total() const;
};

class CompressionPools {
 public:
  // Pools whose contexts the binary's own libzstd, zlib and lz4 make (needs
  // :direct_codec_library).
  explicit CompressionPools(const PoolOptions& options = {})
      : CompressionPools(options, DirectCodecLibraries()) {}
  // Pools whose contexts `libraries` make (their tables must outlive the
  // pools; the legacy face fills them from the copy it resolved).
  CompressionPools(const PoolOptions& options, const CodecLibraries& libraries)
      : built_with_{options, libraries} {}
  CompressionPools(const CompressionPools&) = delete;
  CompressionPools& operator=(const CompressionPools&) = delete;

#define ROCKPOOL_POOL_ACCESSOR(name, Policy, ...) \
  ContextPool<Policy>& name() { return name##_; }
  ROCKPOOL_POOL_TABLE(ROCKPOOL_POOL_ACCESSOR)
#undef ROCKPOOL_POOL_ACCESSOR

  void SetOptions(const PoolOptions& options);
  // Frees every idle context; returns how many.
  size_t Trim();
  // Frees idle contexts older than idle_timeout; returns how many.
  size_t ReleaseExpired();
  CompressionPoolsStats stats() const;

 private:
  // What the pools below are constructed from (their initialisers read it).
  struct BuiltWith {
    PoolOptions options;
    CodecLibraries libraries;
  };
  const BuiltWith built_with_;
#define ROCKPOOL_POOL_MEMBER(name, Policy, library, ...) \
  ContextPool<Policy> name##_{built_with_.options, Policy(built_with_.libraries.library)};
  ROCKPOOL_POOL_TABLE(ROCKPOOL_POOL_MEMBER)
#undef ROCKPOOL_POOL_MEMBER
};

// Adds b's counters into a (peaks add up too).
void Accumulate(PoolStats* a, const PoolStats& b);
// The same for every pool of two sets (e.g. two faces' pools in one process).
void Accumulate(CompressionPoolsStats* a, const CompressionPoolsStats& b);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_
