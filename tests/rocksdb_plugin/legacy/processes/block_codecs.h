/* RocksDB 7.8.3's per-block codec call sequence, for the process matrix of
 * "safe in every process": compiled into each program and module
 * that must behave the same with and without librockpool_interpose.so
 * (static_codec_exe.c, codec_user.c, tests/private_codecs/module.c).
 *
 * Header-only, every function static: each including object gets a copy of
 * its own, so a program exporting everything (-rdynamic) cannot make a
 * shared library's calls to these helpers bind to the program's copy; only
 * the codec calls below go through the dynamic linker.
 *
 * The workload: deterministic data (text-like, compressible) cut into 4 KiB
 * blocks. zlib: per block deflateInit2_(level -1 = Z_DEFAULT_COMPRESSION,
 * Z_DEFLATED, windowBits -14, memLevel 8, Z_DEFAULT_STRATEGY),
 * deflate(Z_FINISH) into deflateBound bytes, deflateEnd; then
 * inflateInit2_(-14), inflate(Z_SYNC_FLUSH), inflateEnd (RocksDB 7.8.3's
 * Zlib_Compress/Zlib_Uncompress with its default CompressionOptions).
 * zstd: ZSTD_createCCtx per "file" of 16 blocks, ZSTD_compress_usingDict
 * (no dictionary, level 3) per block, ZSTD_freeCCtx; ZSTD_createDCtx per
 * file, ZSTD_decompress_usingDict per block, ZSTD_freeDCtx. Every block is
 * checked to round-trip; the result is an FNV-1a digest of all compressed
 * bytes (the output the matrix compares across runs).
 *
 * Optional hooks (BlockCodecsHooks) let a caller check every context it was
 * given (tests/private_codecs/module.c: "was this created by my copy?") and
 * run one codec only.
 */
#ifndef ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_BLOCK_CODECS_H_
#define ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_BLOCK_CODECS_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define BLOCK_CODECS_BLOCK 4096
#define BLOCK_CODECS_BLOCKS_PER_FILE 16

typedef struct {
  uint64_t zlib_digest;
  uint64_t zstd_digest;
  uint64_t zlib_bytes; /* compressed bytes */
  uint64_t zstd_bytes;
  int blocks;
  char error[512]; /* empty when every block round-tripped */
} BlockCodecsResult;

typedef struct {
  /* Each returns 0 if the context is acceptable, else writes why into
   * `why` (256 bytes). Any may be NULL. */
  int (*check_deflate)(z_stream* s, char* why);
  int (*check_inflate)(z_stream* s, char* why);
  int (*check_cctx)(ZSTD_CCtx* c, char* why);
  int (*check_dctx)(ZSTD_DCtx* d, char* why);
  /* Which codecs run: BLOCK_CODECS_ZLIB | BLOCK_CODECS_ZSTD; 0 = both. */
  unsigned codecs;
} BlockCodecsHooks;
#define BLOCK_CODECS_ZLIB 1u
#define BLOCK_CODECS_ZSTD 2u

static uint64_t BlockCodecsFnv(uint64_t h, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* Deterministic, text-like data: words from a small vocabulary chosen by an
 * LCG, with numbers, so it compresses about 3-4x. */
static void BlockCodecsData(unsigned char* out, size_t n, uint32_t seed) {
  static const char* const kWords[] = {"key",     "value",  "rocksdb", "block", "compaction",
                                       "flush",   "level",  "zstd",    "zlib",  "deflate",
                                       "inflate", "pool",   "context", "user",  "0000",
                                       "index",   "filter", "meta",    "sst",   "blob"};
  uint32_t x = seed * 2654435761u + 12345u;
  size_t i = 0;
  while (i < n) {
    x = x * 1664525u + 1013904223u;
    const char* w = kWords[(x >> 16) % 20];
    char buf[40];
    const int len = snprintf(buf, sizeof(buf), "%s%u ", w, (x >> 8) % 1000);
    for (int k = 0; k < len && i < n; ++k) out[i++] = (unsigned char)buf[k];
  }
}

static int BlockCodecsFail(BlockCodecsResult* r, const char* what, int block, long code) {
  snprintf(r->error, sizeof(r->error), "%s failed at block %d (code %ld)", what, block, code);
  return 1;
}

static int BlockCodecsHookFail(BlockCodecsResult* r, const char* what, int block, const char* why) {
  snprintf(r->error, sizeof(r->error), "%s at block %d: %s", what, block, why);
  return 1;
}

/* Runs `blocks` blocks of the workload (seeded by `seed`); 0 on success. */
static int BlockCodecsRun(int blocks, uint32_t seed, const BlockCodecsHooks* hooks,
                          BlockCodecsResult* r) {
  memset(r, 0, sizeof(*r));
  r->zlib_digest = r->zstd_digest = 1469598103934665603ull;
  const size_t n = BLOCK_CODECS_BLOCK;
  unsigned char* in = (unsigned char*)malloc(n);
  unsigned char* packed = (unsigned char*)malloc(2 * n + 1024);
  unsigned char* out = (unsigned char*)malloc(n);
  if (in == NULL || packed == NULL || out == NULL) {
    free(in), free(packed), free(out);
    snprintf(r->error, sizeof(r->error), "out of memory");
    return 1;
  }
  char why[256];
  int failed = 0;
  ZSTD_CCtx* cctx = NULL;
  ZSTD_DCtx* dctx = NULL;
  const unsigned codecs =
      hooks != NULL && hooks->codecs != 0 ? hooks->codecs : (BLOCK_CODECS_ZLIB | BLOCK_CODECS_ZSTD);
  for (int b = 0; b < blocks && !failed; ++b) {
    BlockCodecsData(in, n, seed + (uint32_t)b);
    r->blocks = b + 1;
    if (codecs & BLOCK_CODECS_ZLIB) {
      /* zlib, one stream per block. */
      z_stream d;
      memset(&d, 0, sizeof(d));
      int rc = deflateInit2(&d, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY);
      if (rc != Z_OK) {
        failed = BlockCodecsFail(r, "deflateInit2_", b, rc);
        break;
      }
      if (hooks != NULL && hooks->check_deflate != NULL && hooks->check_deflate(&d, why) != 0) {
        deflateEnd(&d);
        failed = BlockCodecsHookFail(r, "deflate stream", b, why);
        break;
      }
      const uLong bound = deflateBound(&d, n);
      d.next_in = in;
      d.avail_in = (uInt)n;
      d.next_out = packed;
      d.avail_out = (uInt)bound;
      rc = deflate(&d, Z_FINISH);
      const uLong zlen = d.total_out;
      const int end = deflateEnd(&d);
      if (rc != Z_STREAM_END || end != Z_OK) {
        failed = BlockCodecsFail(r, "deflate", b, rc != Z_STREAM_END ? rc : end);
        break;
      }
      r->zlib_digest = BlockCodecsFnv(r->zlib_digest, packed, zlen);
      r->zlib_bytes += zlen;

      z_stream i;
      memset(&i, 0, sizeof(i));
      rc = inflateInit2(&i, -14);
      if (rc != Z_OK) {
        failed = BlockCodecsFail(r, "inflateInit2_", b, rc);
        break;
      }
      if (hooks != NULL && hooks->check_inflate != NULL && hooks->check_inflate(&i, why) != 0) {
        inflateEnd(&i);
        failed = BlockCodecsHookFail(r, "inflate stream", b, why);
        break;
      }
      i.next_in = packed;
      i.avail_in = (uInt)zlen;
      i.next_out = out;
      i.avail_out = (uInt)n;
      rc = inflate(&i, Z_SYNC_FLUSH);
      const uLong got = i.total_out;
      inflateEnd(&i);
      if ((rc != Z_STREAM_END && rc != Z_OK) || got != n || memcmp(in, out, n) != 0) {
        failed = BlockCodecsFail(r, "inflate round trip", b, rc);
        break;
      }
    }
    if ((codecs & BLOCK_CODECS_ZSTD) == 0) continue;
    /* zstd, one CCtx/DCtx per file of blocks. */
    if (b % BLOCK_CODECS_BLOCKS_PER_FILE == 0) {
      cctx = ZSTD_createCCtx();
      dctx = ZSTD_createDCtx();
      if (cctx == NULL || dctx == NULL) {
        failed = BlockCodecsFail(r, "ZSTD_createCCtx/DCtx", b, 0);
        break;
      }
      if (hooks != NULL && hooks->check_cctx != NULL && hooks->check_cctx(cctx, why) != 0) {
        failed = BlockCodecsHookFail(r, "ZSTD_CCtx", b, why);
        break;
      }
      if (hooks != NULL && hooks->check_dctx != NULL && hooks->check_dctx(dctx, why) != 0) {
        failed = BlockCodecsHookFail(r, "ZSTD_DCtx", b, why);
        break;
      }
    }
    const size_t zs =
        ZSTD_compress_usingDict(cctx, packed, ZSTD_compressBound(n), in, n, NULL, 0, 3);
    if (ZSTD_isError(zs)) {
      failed = BlockCodecsFail(r, "ZSTD_compress_usingDict", b, (long)zs);
      break;
    }
    r->zstd_digest = BlockCodecsFnv(r->zstd_digest, packed, zs);
    r->zstd_bytes += zs;
    const size_t zd = ZSTD_decompress_usingDict(dctx, out, n, packed, zs, NULL, 0);
    if (ZSTD_isError(zd) || zd != n || memcmp(in, out, n) != 0) {
      failed = BlockCodecsFail(r, "ZSTD_decompress_usingDict round trip", b, (long)zd);
      break;
    }
    if (b % BLOCK_CODECS_BLOCKS_PER_FILE == BLOCK_CODECS_BLOCKS_PER_FILE - 1 || b == blocks - 1) {
      ZSTD_freeCCtx(cctx);
      ZSTD_freeDCtx(dctx);
      cctx = NULL;
      dctx = NULL;
    }
  }
  ZSTD_freeCCtx(cctx); /* NULL-safe; set after a failure only */
  ZSTD_freeDCtx(dctx);
  free(in);
  free(packed);
  free(out);
  return failed;
}

/* "<who> blocks=N zlib=<digest>/<bytes> zstd=<digest>/<bytes>" or the error. */
static void BlockCodecsPrint(FILE* f, const char* who, const BlockCodecsResult* r) {
  if (r->error[0] != '\0') {
    fprintf(f, "%s error: %s\n", who, r->error);
  } else {
    fprintf(f, "%s blocks=%d zlib=%016llx/%llu zstd=%016llx/%llu\n", who, r->blocks,
            (unsigned long long)r->zlib_digest, (unsigned long long)r->zlib_bytes,
            (unsigned long long)r->zstd_digest, (unsigned long long)r->zstd_bytes);
  }
}

#endif /* ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_BLOCK_CODECS_H_ */
