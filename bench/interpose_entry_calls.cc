// The calling side of //bench:interpose_entry_bench, built as a shared
// library so that its zstd/zlib calls go through the PLT to whatever the
// dynamic linker binds them to, exactly like librocksdb.so's: the benchmark
// executable links //rocksdb_plugin:interpose and exports its definitions
// (the target's linkopts), so they bind to rockpool's. The call sequences
// are RocksDB 7.8.3's (util/compression.h): a zeroed z_stream on the stack,
// deflateInit2(level, Z_DEFLATED, windowBits -14, memLevel 8, strategy 0) /
// inflateInit2(-14), a ZSTD_CCtx / ZSTD_DCtx created and freed.
//
// No rockpool header: this side knows only the C libraries.
#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <cstring>

#include "bench/interpose_entry_calls.h"

namespace {

constexpr int kWindowBits = -14;  // RocksDB's CompressionOptions default (raw deflate)
constexpr int kMemLevel = 8;      // RocksDB's Zlib_Compress

inline int ZstdCCtxPair() {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (c == nullptr) return 1;
  ZSTD_freeCCtx(c);
  return 0;
}

inline int ZstdDCtxPair() {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  if (d == nullptr) return 1;
  ZSTD_freeDCtx(d);
  return 0;
}

inline int DeflatePair() {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return 1;
  }
  deflateEnd(&s);
  return 0;
}

inline int InflatePair() {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (inflateInit2(&s, kWindowBits) != Z_OK) return 1;
  inflateEnd(&s);
  return 0;
}

inline int Pairs(int kind, long n) {
  int failed = 0;
  switch (kind) {
    case ROCKPOOL_ENTRY_ZSTD_CCTX:
      for (long i = 0; i < n; ++i) failed |= ZstdCCtxPair();
      return failed;
    case ROCKPOOL_ENTRY_ZSTD_DCTX:
      for (long i = 0; i < n; ++i) failed |= ZstdDCtxPair();
      return failed;
    case ROCKPOOL_ENTRY_DEFLATE:
      for (long i = 0; i < n; ++i) failed |= DeflatePair();
      return failed;
    case ROCKPOOL_ENTRY_INFLATE:
      for (long i = 0; i < n; ++i) failed |= InflatePair();
      return failed;
  }
  return 1;
}

}  // namespace

extern "C" {

int rockpool_entry_zstd_cctx_pair(void) { return ZstdCCtxPair(); }
int rockpool_entry_zstd_dctx_pair(void) { return ZstdDCtxPair(); }
int rockpool_entry_deflate_pair(void) { return DeflatePair(); }
int rockpool_entry_inflate_pair(void) { return InflatePair(); }

__attribute__((noinline)) int rockpool_entry_pairs(int kind, long n) { return Pairs(kind, n); }
__attribute__((noinline)) int rockpool_entry_warmup(int kind, long n) { return Pairs(kind, n); }

long rockpool_entry_deflate_block(const char* in, size_t n, char* out, size_t capacity) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return -1;
  }
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
  s.avail_in = static_cast<uInt>(n);
  s.next_out = reinterpret_cast<Bytef*>(out);
  s.avail_out = static_cast<uInt>(capacity);
  const int rc = deflate(&s, Z_FINISH);
  const long size = static_cast<long>(s.total_out);
  deflateEnd(&s);
  return rc == Z_STREAM_END ? size : -1;
}

long rockpool_entry_inflate_block(const char* in, size_t n, char* out, size_t capacity) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (inflateInit2(&s, kWindowBits) != Z_OK) return -1;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
  s.avail_in = static_cast<uInt>(n);
  s.next_out = reinterpret_cast<Bytef*>(out);
  s.avail_out = static_cast<uInt>(capacity);
  // RocksDB 7.8.3's Zlib_Uncompress inflates with Z_SYNC_FLUSH.
  const int rc = inflate(&s, Z_SYNC_FLUSH);
  const long size = static_cast<long>(s.total_out);
  inflateEnd(&s);
  return rc == Z_STREAM_END ? size : -1;
}

}  // extern "C"
