// The real zstd and zlib functions behind rockpool's interposers, found with
// dlsym(RTLD_NEXT, ...): the next definition after the object rockpool lives
// in (the executable for a Bazel program, librockpool_preload.so under
// LD_PRELOAD), that is, libzstd.so and libz.so.
//
// Each pointer is resolved once, lazily and lock-free; a symbol that cannot be
// found stays null (the interposer then fails the call the way the library
// would on an allocation failure, and says so once on stderr).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REAL_FUNCTIONS_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REAL_FUNCTIONS_H_

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_threadPool
#include <zdict.h>
#include <zstd.h>

namespace rockpool::legacy::real {

// zstd
ZSTD_CCtx* ZSTD_createCCtx();
size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx);
ZSTD_DCtx* ZSTD_createDCtx();
size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx);
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value);
size_t ZSTD_CCtx_refThreadPool(ZSTD_CCtx* cctx, ZSTD_threadPool* pool);
size_t ZSTD_compress_usingDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                               size_t src_size, const void* dict, size_t dict_size, int level);
size_t ZSTD_compress_usingCDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                                size_t src_size, const ZSTD_CDict* cdict);
size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input,
                            ZSTD_EndDirective end_op);

// zstd's dictionary builder
size_t ZDICT_trainFromBuffer(void* dict_buffer, size_t dict_capacity, const void* samples,
                             const size_t* sample_sizes, unsigned sample_count);
size_t ZDICT_finalizeDictionary(void* dst, size_t dst_capacity, const void* content,
                                size_t content_size, const void* samples,
                                const size_t* sample_sizes, unsigned sample_count,
                                ZDICT_params_t parameters);

// zlib
int deflateInit_(z_streamp strm, int level, const char* version, int stream_size);
int deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level,
                  int strategy, const char* version, int stream_size);
int deflateEnd(z_streamp strm);
int deflateParams(z_streamp strm, int level, int strategy);
int deflateSetHeader(z_streamp strm, gz_headerp head);
int deflateCopy(z_streamp dest, z_streamp source);
int inflateInit_(z_streamp strm, const char* version, int stream_size);
int inflateInit2_(z_streamp strm, int window_bits, const char* version, int stream_size);
int inflateEnd(z_streamp strm);
int inflateReset2(z_streamp strm, int window_bits);
int inflateValidate(z_streamp strm, int check);
int inflateCopy(z_streamp dest, z_streamp source);

}  // namespace rockpool::legacy::real

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REAL_FUNCTIONS_H_
