#include "rocksdb_plugin/legacy/real_functions.h"

#include <dlfcn.h>

#include <zstd_errors.h>

#include <atomic>
#include <cstdio>

namespace rockpool::legacy::real {
namespace {

// Resolves `name` once. dlsym(RTLD_NEXT) must be called from this object, so
// this stays a plain function in this file (not inlined into a header).
template <typename F>
F Resolve(std::atomic<void*>* slot, const char* name) {
  void* p = slot->load(std::memory_order_acquire);
  if (p == nullptr) {
    p = dlsym(RTLD_NEXT, name);
    if (p == nullptr) {
      std::fprintf(stderr, "rockpool: cannot find the real %s (dlsym: %s)\n", name, dlerror());
      return nullptr;
    }
    slot->store(p, std::memory_order_release);
  }
  return reinterpret_cast<F>(p);
}

#define ROCKPOOL_REAL(name)                \
  static std::atomic<void*> slot{nullptr}; \
  auto fn = Resolve<decltype(&::name)>(&slot, #name)

}  // namespace

ZSTD_CCtx* ZSTD_createCCtx() {
  ROCKPOOL_REAL(ZSTD_createCCtx);
  return fn != nullptr ? fn() : nullptr;
}

size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx) {
  ROCKPOOL_REAL(ZSTD_freeCCtx);
  return fn != nullptr ? fn(cctx) : static_cast<size_t>(-ZSTD_error_GENERIC);
}

ZSTD_DCtx* ZSTD_createDCtx() {
  ROCKPOOL_REAL(ZSTD_createDCtx);
  return fn != nullptr ? fn() : nullptr;
}

size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx) {
  ROCKPOOL_REAL(ZSTD_freeDCtx);
  return fn != nullptr ? fn(dctx) : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value) {
  ROCKPOOL_REAL(ZSTD_CCtx_setParameter);
  return fn != nullptr ? fn(cctx, param, value) : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZSTD_CCtx_refThreadPool(ZSTD_CCtx* cctx, ZSTD_threadPool* pool) {
  ROCKPOOL_REAL(ZSTD_CCtx_refThreadPool);
  return fn != nullptr ? fn(cctx, pool) : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZSTD_compress_usingDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                               size_t src_size, const void* dict, size_t dict_size, int level) {
  ROCKPOOL_REAL(ZSTD_compress_usingDict);
  return fn != nullptr ? fn(cctx, dst, dst_capacity, src, src_size, dict, dict_size, level)
                       : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZSTD_compress_usingCDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                                size_t src_size, const ZSTD_CDict* cdict) {
  ROCKPOOL_REAL(ZSTD_compress_usingCDict);
  return fn != nullptr ? fn(cctx, dst, dst_capacity, src, src_size, cdict)
                       : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input,
                            ZSTD_EndDirective end_op) {
  ROCKPOOL_REAL(ZSTD_compressStream2);
  return fn != nullptr ? fn(cctx, output, input, end_op) : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZDICT_trainFromBuffer(void* dict_buffer, size_t dict_capacity, const void* samples,
                             const size_t* sample_sizes, unsigned sample_count) {
  ROCKPOOL_REAL(ZDICT_trainFromBuffer);
  return fn != nullptr ? fn(dict_buffer, dict_capacity, samples, sample_sizes, sample_count)
                       : static_cast<size_t>(-ZSTD_error_GENERIC);
}

size_t ZDICT_finalizeDictionary(void* dst, size_t dst_capacity, const void* content,
                                size_t content_size, const void* samples,
                                const size_t* sample_sizes, unsigned sample_count,
                                ZDICT_params_t parameters) {
  ROCKPOOL_REAL(ZDICT_finalizeDictionary);
  return fn != nullptr ? fn(dst, dst_capacity, content, content_size, samples, sample_sizes,
                            sample_count, parameters)
                       : static_cast<size_t>(-ZSTD_error_GENERIC);
}

int deflateInit_(z_streamp strm, int level, const char* version, int stream_size) {
  ROCKPOOL_REAL(deflateInit_);
  return fn != nullptr ? fn(strm, level, version, stream_size) : Z_MEM_ERROR;
}

int deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level,
                  int strategy, const char* version, int stream_size) {
  ROCKPOOL_REAL(deflateInit2_);
  return fn != nullptr
             ? fn(strm, level, method, window_bits, mem_level, strategy, version, stream_size)
             : Z_MEM_ERROR;
}

int deflateEnd(z_streamp strm) {
  ROCKPOOL_REAL(deflateEnd);
  return fn != nullptr ? fn(strm) : Z_STREAM_ERROR;
}

int deflateParams(z_streamp strm, int level, int strategy) {
  ROCKPOOL_REAL(deflateParams);
  return fn != nullptr ? fn(strm, level, strategy) : Z_STREAM_ERROR;
}

int deflateSetHeader(z_streamp strm, gz_headerp head) {
  ROCKPOOL_REAL(deflateSetHeader);
  return fn != nullptr ? fn(strm, head) : Z_STREAM_ERROR;
}

int deflateCopy(z_streamp dest, z_streamp source) {
  ROCKPOOL_REAL(deflateCopy);
  return fn != nullptr ? fn(dest, source) : Z_STREAM_ERROR;
}

int inflateInit_(z_streamp strm, const char* version, int stream_size) {
  ROCKPOOL_REAL(inflateInit_);
  return fn != nullptr ? fn(strm, version, stream_size) : Z_MEM_ERROR;
}

int inflateInit2_(z_streamp strm, int window_bits, const char* version, int stream_size) {
  ROCKPOOL_REAL(inflateInit2_);
  return fn != nullptr ? fn(strm, window_bits, version, stream_size) : Z_MEM_ERROR;
}

int inflateEnd(z_streamp strm) {
  ROCKPOOL_REAL(inflateEnd);
  return fn != nullptr ? fn(strm) : Z_STREAM_ERROR;
}

int inflateReset2(z_streamp strm, int window_bits) {
  ROCKPOOL_REAL(inflateReset2);
  return fn != nullptr ? fn(strm, window_bits) : Z_STREAM_ERROR;
}

int inflateValidate(z_streamp strm, int check) {
  ROCKPOOL_REAL(inflateValidate);
  return fn != nullptr ? fn(strm, check) : Z_STREAM_ERROR;
}

int inflateCopy(z_streamp dest, z_streamp source) {
  ROCKPOOL_REAL(inflateCopy);
  return fn != nullptr ? fn(dest, source) : Z_STREAM_ERROR;
}

}  // namespace rockpool::legacy::real
