// zstd context lifecycle, served from rockpool's pools.
//
// ZSTD_createCCtx() returns the context of a lease from the process-wide
// ZstdCompressPool (single-threaded: nbWorkers 0, enforced by the pool on
// creation and on every reset); ZSTD_freeCCtx() gives it back (the pool
// resets session and parameters, so the next user sees a fresh context).
// Pointers rockpool did not hand out are forwarded to libzstd untouched, as is
// everything while pooling is off. The same for ZSTD_createDCtx/freeDCtx.
//
// ZSTD_CCtx_setParameter is watched for one thing: nbWorkers > 0 on a pooled
// context. The caller gets its workers; the context is destroyed instead of
// pooled when freed, so no worker pool ever sits idle in the pool. Likewise
// ZSTD_CCtx_refThreadPool (a reset does not drop the pool reference).
//
// ZSTD_compress_usingDict / ZSTD_compress_usingCDict on a context rockpool
// leased (and only in mode pool) run on a context of the call's size class
// instead (Runtime::CompressUsingDict: why, with numbers, in runtime.cc).
// ZDICT_trainFromBuffer / ZDICT_finalizeDictionary (RocksDB's dictionary
// training) are forwarded with a thread-local mark: the CCtxs libzstd creates
// inside them come from their own class (runtime_internal.h,
// InsideDictionaryTraining).
// ZSTD_compressStream2 is streaming state on the handle itself and is only
// tagged for allocation attribution (counting_allocator.h).
//
// No exception leaves these functions; failures fall back to the library.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_refThreadPool
#include <zdict.h>
#include <zstd.h>

#include "compression/counting_allocator.h"
#include "rocksdb_plugin/legacy/real_functions.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace {

using rockpool::AllocationSite;
using rockpool::RockpoolOptions;
using rockpool::ScopedAllocationSite;
using rockpool::legacy::internal::g_mode;
using rockpool::legacy::internal::InsideDictionaryTraining;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;
namespace real = rockpool::legacy::real;

// The runtime, if a compress call should be routed.
Runtime* ForRouting() {
  if (g_mode.load(std::memory_order_relaxed) != static_cast<int>(RockpoolOptions::Mode::kPool) ||
      !rockpool::legacy::internal::g_zstd_size_classes.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  if (InsideRockpool::active()) return nullptr;
  return Runtime::Get();
}

// The runtime, if a free call may concern one of our contexts (the runtime
// then tells from the context itself: zstd_leases.cc).
Runtime* ForFree() {
  if (InsideRockpool::active()) return nullptr;
  return Runtime::Get();
}

}  // namespace

extern "C" {

ZSTD_CCtx* ZSTD_createCCtx(void) {
  if (ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (ZSTD_CCtx* cctx = rt->LeaseCCtx()) return cctx;
    }
  }
  return real::ZSTD_createCCtx();
}

size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx) {
  if (cctx != nullptr) {
    if (Runtime* rt = ForFree(); rt != nullptr && rt->ReturnCCtx(cctx)) return 0;
  }
  return real::ZSTD_freeCCtx(cctx);
}

ZSTD_DCtx* ZSTD_createDCtx(void) {
  if (ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (ZSTD_DCtx* dctx = rt->LeaseDCtx()) return dctx;
    }
  }
  return real::ZSTD_createDCtx();
}

size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx) {
  if (dctx != nullptr) {
    if (Runtime* rt = ForFree(); rt != nullptr && rt->ReturnDCtx(dctx)) return 0;
  }
  return real::ZSTD_freeDCtx(dctx);
}

size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value) {
  if (param == ZSTD_c_nbWorkers && value != 0 && cctx != nullptr) {
    if (Runtime* rt = ForFree()) rt->NoteCCtxWorkers(cctx);
  }
  return real::ZSTD_CCtx_setParameter(cctx, param, value);
}

size_t ZSTD_CCtx_refThreadPool(ZSTD_CCtx* cctx, ZSTD_threadPool* pool) {
  if (cctx != nullptr) {
    if (Runtime* rt = ForFree()) rt->NoteCCtxWorkers(cctx);
  }
  return real::ZSTD_CCtx_refThreadPool(cctx, pool);
}

size_t ZSTD_compress_usingDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                               size_t src_size, const void* dict, size_t dict_size, int level) {
  ScopedAllocationSite site(AllocationSite::kCompressUsingDict);
  if (Runtime* rt = ForRouting()) {
    size_t result = 0;
    if (rt->CompressUsingDict(cctx, dst, dst_capacity, src, src_size, dict, dict_size, level,
                              &result)) {
      return result;
    }
  }
  return real::ZSTD_compress_usingDict(cctx, dst, dst_capacity, src, src_size, dict, dict_size,
                                       level);
}

size_t ZSTD_compress_usingCDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                                size_t src_size, const ZSTD_CDict* cdict) {
  ScopedAllocationSite site(AllocationSite::kCompressUsingCDict);
  if (Runtime* rt = ForRouting()) {
    size_t result = 0;
    if (rt->CompressUsingCDict(cctx, dst, dst_capacity, src, src_size, cdict, &result)) {
      return result;
    }
  }
  return real::ZSTD_compress_usingCDict(cctx, dst, dst_capacity, src, src_size, cdict);
}

size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input,
                            ZSTD_EndDirective end_op) {
  ScopedAllocationSite site(AllocationSite::kCompressStream2);
  return real::ZSTD_compressStream2(cctx, output, input, end_op);
}

size_t ZDICT_trainFromBuffer(void* dict_buffer, size_t dict_capacity, const void* samples,
                             const size_t* sample_sizes, unsigned sample_count) {
  ScopedAllocationSite site(AllocationSite::kTrainDictionary);
  InsideDictionaryTraining training;
  return real::ZDICT_trainFromBuffer(dict_buffer, dict_capacity, samples, sample_sizes,
                                     sample_count);
}

size_t ZDICT_finalizeDictionary(void* dst, size_t dst_capacity, const void* content,
                                size_t content_size, const void* samples,
                                const size_t* sample_sizes, unsigned sample_count,
                                ZDICT_params_t parameters) {
  ScopedAllocationSite site(AllocationSite::kTrainDictionary);
  InsideDictionaryTraining training;
  return real::ZDICT_finalizeDictionary(dst, dst_capacity, content, content_size, samples,
                                        sample_sizes, sample_count, parameters);
}

}  // extern "C"
