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

  // One accessor per pool, written out so a reader's grep finds them.
  // pool_table.h lists the same pools for everything that has one thing per
  // pool; compression_pools.cc reads every member the table names (a table
  // entry without a member fails to build) and counts them (kPools).
  ZstdCompressPool& zstd_compress() { return zstd_compress_; }
  ZstdDecompressPool& zstd_decompress() { return zstd_decompress_; }
  DeflatePool& deflate() { return deflate_; }
  InflatePool& inflate() { return inflate_; }
  Lz4Pool& lz4() { return lz4_; }
  Lz4HcPool& lz4hc() { return lz4hc_; }
  static constexpr int kPools = 6;

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
  ZstdCompressPool zstd_compress_{built_with_.options,
                                  ZstdCompressPolicy(built_with_.libraries.zstd)};
  ZstdDecompressPool zstd_decompress_{built_with_.options,
                                      ZstdDecompressPolicy(built_with_.libraries.zstd)};
  DeflatePool deflate_{built_with_.options, DeflatePolicy(built_with_.libraries.zlib)};
  InflatePool inflate_{built_with_.options, InflatePolicy(built_with_.libraries.zlib)};
  Lz4Pool lz4_{built_with_.options, Lz4StreamPolicy(built_with_.libraries.lz4)};
  Lz4HcPool lz4hc_{built_with_.options, Lz4HcStreamPolicy(built_with_.libraries.lz4)};
};

// Adds b's counters into a (peaks add up too).
void Accumulate(PoolStats* a, const PoolStats& b);
// The same for every pool of two sets (e.g. two faces' pools in one process).
void Accumulate(CompressionPoolsStats* a, const CompressionPoolsStats& b);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_
