// libinterpose_entry_calls.so (bench/interpose_entry_calls.cc): RocksDB
// 7.8.3's per-block context calls, made from a shared library through the
// PLT. Each returns 0 (or a size) on success, nonzero (-1) on failure.
#ifndef ROCKPOOL_BENCH_INTERPOSE_ENTRY_CALLS_H_
#define ROCKPOOL_BENCH_INTERPOSE_ENTRY_CALLS_H_

#include <stddef.h>

#define ROCKPOOL_ENTRY_ZSTD_CCTX 0  // ZSTD_createCCtx + ZSTD_freeCCtx
#define ROCKPOOL_ENTRY_ZSTD_DCTX 1  // ZSTD_createDCtx + ZSTD_freeDCtx
#define ROCKPOOL_ENTRY_DEFLATE 2    // deflateInit2_(-1, Z_DEFLATED, -14, 8, 0) + deflateEnd
#define ROCKPOOL_ENTRY_INFLATE 3    // inflateInit2_(-14) + inflateEnd

extern "C" {

// One pair each.
int rockpool_entry_zstd_cctx_pair(void);
int rockpool_entry_zstd_dctx_pair(void);
int rockpool_entry_deflate_pair(void);
int rockpool_entry_inflate_pair(void);

// `n` pairs of `kind` in one loop. Two names for the same loop: callgrind
// collects only rockpool_entry_pairs (--toggle-collect), after a warm-up
// through rockpool_entry_warmup.
int rockpool_entry_pairs(int kind, long n);
int rockpool_entry_warmup(int kind, long n);

// RocksDB's per-block pattern: deflateInit2_, one deflate(Z_FINISH) of
// `in`, deflateEnd (returns the compressed size); inflateInit2_, one
// inflate(Z_SYNC_FLUSH), inflateEnd (returns the plain size).
long rockpool_entry_deflate_block(const char* in, size_t n, char* out, size_t capacity);
long rockpool_entry_inflate_block(const char* in, size_t n, char* out, size_t capacity);

}  // extern "C"

#endif  // ROCKPOOL_BENCH_INTERPOSE_ENTRY_CALLS_H_
