// The seven context pools rockpool runs (zstd compress, zstd compress by
// size class for routed one-shot calls, zstd decompress, deflate, inflate,
// LZ4 and LZ4HC streams), configured together, with one place to read their
// statistics.
#ifndef ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_
#define ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_

#include <cstddef>

#include "compression/codec_library.h"
#include "compression/context_pool.h"
#include "compression/lz4_contexts.h"
#include "compression/zlib_contexts.h"
#include "compression/zstd_contexts.h"

namespace rockpool {

struct CompressionPoolsStats {
  PoolStats zstd_compress;
  PoolStats zstd_decompress;
  PoolStats deflate;
  PoolStats inflate;
  PoolStats lz4;
  PoolStats lz4hc;
  // The zstd_compress_blocks pool alone. Its library bytes (and idle bytes)
  // are also added to zstd_compress, whose contexts they serve; its counts
  // are not (a routed call is not a context stock RocksDB would create).
  PoolStats zstd_compress_blocks;
  // Field-wise sum (peak_in_use is the sum of the peaks).
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
      : zstd_compress_(options, ZstdCompressPolicy(libraries.zstd)),
        zstd_compress_blocks_(options, ZstdCompressPolicy(libraries.zstd)),
        zstd_decompress_(options, ZstdDecompressPolicy(libraries.zstd)),
        deflate_(options, DeflatePolicy(libraries.zlib)),
        inflate_(options, InflatePolicy(libraries.zlib)),
        lz4_(options, Lz4StreamPolicy(libraries.lz4)),
        lz4hc_(options, Lz4HcStreamPolicy(libraries.lz4)) {}
  CompressionPools(const CompressionPools&) = delete;
  CompressionPools& operator=(const CompressionPools&) = delete;

  ZstdCompressPool& zstd_compress() { return zstd_compress_; }
  // Contexts keyed by size class, leased for the length of one compress call
  // (the legacy face routes RocksDB's ZSTD_compress_using(C)Dict here).
  ZstdCompressPool& zstd_compress_blocks() { return zstd_compress_blocks_; }
  ZstdDecompressPool& zstd_decompress() { return zstd_decompress_; }
  DeflatePool& deflate() { return deflate_; }
  InflatePool& inflate() { return inflate_; }
  Lz4Pool& lz4() { return lz4_; }
  Lz4HcPool& lz4hc() { return lz4hc_; }

  void SetOptions(const PoolOptions& options);
  // Frees every idle context; returns how many.
  size_t Trim();
  // Frees idle contexts older than idle_timeout; returns how many.
  size_t ReleaseExpired();
  CompressionPoolsStats stats() const;

 private:
  ZstdCompressPool zstd_compress_;
  ZstdCompressPool zstd_compress_blocks_;
  ZstdDecompressPool zstd_decompress_;
  DeflatePool deflate_;
  InflatePool inflate_;
  Lz4Pool lz4_;
  Lz4HcPool lz4hc_;
};

// Adds b's counters into a (peaks add up too).
void Accumulate(PoolStats* a, const PoolStats& b);
// The same for every pool of two sets (e.g. two faces' pools in one process).
void Accumulate(CompressionPoolsStats* a, const CompressionPoolsStats& b);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COMPRESSION_POOLS_H_
