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
// No exception leaves these functions; failures fall back to the library.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_refThreadPool
#include <zstd.h>

#include "rocksdb_plugin/legacy/real_functions.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace {

using rockpool::legacy::internal::g_zstd_outstanding;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;
namespace real = rockpool::legacy::real;

// The runtime, if a free call may concern one of our contexts.
Runtime* ForFree() {
  if (InsideRockpool::active() || g_zstd_outstanding.load(std::memory_order_relaxed) <= 0) {
    return nullptr;
  }
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

}  // extern "C"
