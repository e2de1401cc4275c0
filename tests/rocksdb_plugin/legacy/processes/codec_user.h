/* The interface of libcodec_user.so (codec_user.c) for static_codec_exe.c. */
#ifndef ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_CODEC_USER_H_
#define ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_CODEC_USER_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the block workload in the library; prints its "lib ..." line on
 * stdout; 0 if every block round-tripped. */
int codec_user_run(int blocks, unsigned seed);

/* Writes the addresses the library's codec references resolve to, in the
 * order of CODEC_USER_FUNCTION_NAMES; returns how many there are. */
int codec_user_functions(const void** out, int cap);

#define CODEC_USER_FUNCTION_NAMES                                                         \
  {                                                                                       \
    "deflateInit2_", "deflate", "deflateEnd", "deflateBound", "inflateInit2_", "inflate", \
        "inflateEnd", "ZSTD_createCCtx", "ZSTD_freeCCtx", "ZSTD_compress_usingDict",      \
        "ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_decompress_usingDict"                   \
  }

/* The same functions' addresses as the object that expands this resolves
 * them (its own definitions, or its GOT): one list for the executable and
 * the library, so the two can only be compared name by name. Needs zlib.h
 * and zstd.h. */
#define CODEC_USER_FUNCTION_ADDRESSES                                                         \
  {                                                                                           \
    (const void*)&deflateInit2_, (const void*)&deflate, (const void*)&deflateEnd,             \
        (const void*)&deflateBound, (const void*)&inflateInit2_, (const void*)&inflate,       \
        (const void*)&inflateEnd, (const void*)&ZSTD_createCCtx, (const void*)&ZSTD_freeCCtx, \
        (const void*)&ZSTD_compress_usingDict, (const void*)&ZSTD_createDCtx,                 \
        (const void*)&ZSTD_freeDCtx, (const void*)&ZSTD_decompress_usingDict                  \
  }

#ifdef __cplusplus
}
#endif

#endif /* ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PROCESSES_CODEC_USER_H_ */
