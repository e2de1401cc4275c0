#include "compression/compression_pools.h"

namespace rockpool {

void Accumulate(PoolStats* a, const PoolStats& b) {
  a->created += b.created;
  a->reused += b.reused;
  a->destroyed += b.destroyed;
  a->reset_failures += b.reset_failures;
  a->idle += b.idle;
  a->in_use += b.in_use;
  a->peak_in_use += b.peak_in_use;
  a->idle_bytes += b.idle_bytes;
  a->library += b.library;
}

void Accumulate(CompressionPoolsStats* a, const CompressionPoolsStats& b) {
  Accumulate(&a->zstd_compress, b.zstd_compress);
  Accumulate(&a->zstd_decompress, b.zstd_decompress);
  Accumulate(&a->deflate, b.deflate);
  Accumulate(&a->inflate, b.inflate);
  Accumulate(&a->lz4, b.lz4);
  Accumulate(&a->lz4hc, b.lz4hc);
  Accumulate(&a->zstd_compress_blocks, b.zstd_compress_blocks);
}

PoolStats CompressionPoolsStats::Total() const {
  PoolStats total;
  for (const PoolStats* s : {&zstd_compress, &zstd_decompress, &deflate, &inflate, &lz4, &lz4hc}) {
    Accumulate(&total, *s);
  }
  return total;
}

void CompressionPools::SetOptions(const PoolOptions& options) {
  zstd_compress_.SetOptions(options);
  zstd_compress_blocks_.SetOptions(options);
  zstd_decompress_.SetOptions(options);
  deflate_.SetOptions(options);
  inflate_.SetOptions(options);
  lz4_.SetOptions(options);
  lz4hc_.SetOptions(options);
}

size_t CompressionPools::Trim() {
  return zstd_compress_.Trim() + zstd_compress_blocks_.Trim() + zstd_decompress_.Trim() +
         deflate_.Trim() + inflate_.Trim() + lz4_.Trim() + lz4hc_.Trim();
}

size_t CompressionPools::ReleaseExpired() {
  return zstd_compress_.ReleaseExpired() + zstd_compress_blocks_.ReleaseExpired() +
         zstd_decompress_.ReleaseExpired() + deflate_.ReleaseExpired() + inflate_.ReleaseExpired() +
         lz4_.ReleaseExpired() + lz4hc_.ReleaseExpired();
}

CompressionPoolsStats CompressionPools::stats() const {
  CompressionPoolsStats s{zstd_compress_.stats(),
                          zstd_decompress_.stats(),
                          deflate_.stats(),
                          inflate_.stats(),
                          lz4_.stats(),
                          lz4hc_.stats(),
                          zstd_compress_blocks_.stats()};
  // The size-class contexts' library bytes are zstd's bytes for RocksDB's
  // CCtxs: counted there. Their counts (a lease per call) stay apart.
  const PoolStats& blocks = s.zstd_compress_blocks;
  s.zstd_compress.idle_bytes += blocks.idle_bytes;
  s.zstd_compress.library += blocks.library;
  return s;
}

}  // namespace rockpool
