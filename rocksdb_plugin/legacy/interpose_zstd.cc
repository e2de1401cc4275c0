// zstd context lifecycle, served from rockpool's pools.
//
// ZSTD_createCCtx() returns the context of a lease from the process-wide
// ZstdCompressPool (single-threaded: nbWorkers 0, enforced by the pool on
// creation and on every reset); ZSTD_freeCCtx() gives it back (the pool
// resets session and parameters, so the next user sees a fresh context).
// Pointers rockpool did not hand out are forwarded to libzstd untouched, as is
// everything while pooling is off. The same for ZSTD_createDCtx/freeDCtx.
// The runtime's side of these leases and returns is at the end of this file,
// so one file holds a lease from the entry point to the pool.
//
// ZSTD_CCtx_setParameter is watched for one thing: nbWorkers > 0 on a pooled
// context. The caller gets its workers; the context is destroyed instead of
// pooled when freed, so no worker pool ever sits idle in the pool. Likewise
// ZSTD_CCtx_refThreadPool (a reset does not drop the pool reference).
//
// A context handed to RocksDB is parked in its pool (the lease is kept in the
// pool's entry); the free call finds it through the customMem libzstd keeps
// inside every context (compression/zstd_contexts.h, ParkedContextBehind,
// at the offset zstd_layout.h found): no table, lock or allocation per lease.
//
// ZSTD_compress_usingDict / ZSTD_compress_usingCDict on a context rockpool
// leased (and only in mode pool) run on a context of the call's size class
// instead (Runtime::CompressUsingDict: why, with numbers, in zstd_routing.cc).
// ZDICT_trainFromBuffer / ZDICT_finalizeDictionary (RocksDB's dictionary
// training) are forwarded with a thread-local mark: the CCtxs libzstd creates
// inside them come from their own class (runtime_internal.h,
// InsideDictionaryTraining).
// ZSTD_compressStream2 (RocksDB's WAL compression) is not interposed: it is
// streaming state on the handle itself, which is a real context.
// Test builds tag the calls above with the site whose allocations they make
// (AllocationSite, runtime.h); other builds compile the tags away.
//
// No exception leaves these functions; failures fall back to the library.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_refThreadPool, ZSTD_CCtx_getParameter
#include <zdict.h>
#include <zstd.h>

#include <zstd_errors.h>

#include <utility>

#include "compression/counting_allocator.h"
#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace {

using rockpool::RockpoolOptions;
using rockpool::ScopedAllocationTag;
using rockpool::legacy::AllocationSite;
using rockpool::legacy::Call;
using rockpool::legacy::Tag;
using rockpool::legacy::ZstdRoutes;
using rockpool::legacy::internal::g_mode;
using rockpool::legacy::internal::InsideDictionaryTraining;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;

constexpr size_t kGenericError = static_cast<size_t>(-ZSTD_error_GENERIC);

// The runtime, if a compress call on the bound copy should be routed.
Runtime* ForRouting(bool pooled) {
  if (!pooled ||
      g_mode.load(std::memory_order_relaxed) != static_cast<int>(RockpoolOptions::Mode::kPool) ||
      !rockpool::legacy::internal::ZstdSizeClassesOn()) {
    return nullptr;
  }
  if (InsideRockpool::active()) return nullptr;
  return Runtime::Get();
}

// The runtime, if a call on the bound copy may concern one of our contexts
// (the runtime then tells from the context itself: Runtime::ReturnCCtx).
Runtime* ForFree(bool pooled) {
  if (!pooled || InsideRockpool::active()) return nullptr;
  return Runtime::Get();
}

}  // namespace

// Each call first asks which copy of libzstd its caller reaches
// (codec_routes.h); only calls on the copy the pools are bound to are
// served from them, the rest go to the caller's copy untouched.
extern "C" {

ZSTD_CCtx* ZSTD_createCCtx(void) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (route.pooled && ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (ZSTD_CCtx* cctx = rt->LeaseCCtx()) return cctx;
    }
  }
  return Call<ZSTD_CCtx*>(route.copy->ZSTD_createCCtx, nullptr);
}

size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (cctx != nullptr) {
    if (Runtime* rt = ForFree(route.pooled); rt != nullptr && rt->ReturnCCtx(*route.copy, cctx)) {
      return 0;
    }
  }
  return Call(route.copy->ZSTD_freeCCtx, kGenericError, cctx);
}

ZSTD_DCtx* ZSTD_createDCtx(void) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (route.pooled && ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (ZSTD_DCtx* dctx = rt->LeaseDCtx()) return dctx;
    }
  }
  return Call<ZSTD_DCtx*>(route.copy->ZSTD_createDCtx, nullptr);
}

size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (dctx != nullptr) {
    if (Runtime* rt = ForFree(route.pooled); rt != nullptr && rt->ReturnDCtx(*route.copy, dctx)) {
      return 0;
    }
  }
  return Call(route.copy->ZSTD_freeDCtx, kGenericError, dctx);
}

size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (param == ZSTD_c_nbWorkers && value != 0 && cctx != nullptr) {
    if (Runtime* rt = ForFree(route.pooled)) rt->NoteCCtxWorkers(*route.copy, cctx);
  }
  return Call(route.copy->ZSTD_CCtx_setParameter, kGenericError, cctx, param, value);
}

size_t ZSTD_CCtx_refThreadPool(ZSTD_CCtx* cctx, ZSTD_threadPool* pool) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  if (cctx != nullptr) {
    if (Runtime* rt = ForFree(route.pooled)) rt->NoteCCtxWorkers(*route.copy, cctx);
  }
  return Call(route.copy->ZSTD_CCtx_refThreadPool, kGenericError, cctx, pool);
}

size_t ZSTD_compress_usingDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                               size_t src_size, const void* dict, size_t dict_size, int level) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  ScopedAllocationTag site(Tag(AllocationSite::kCompressUsingDict));
  if (Runtime* rt = ForRouting(route.pooled)) {
    size_t result = 0;
    if (rt->CompressUsingDict(*route.copy, cctx, dst, dst_capacity, src, src_size, dict, dict_size,
                              level, &result)) {
      return result;
    }
  }
  return Call(route.copy->ZSTD_compress_usingDict, kGenericError, cctx, dst, dst_capacity, src,
              src_size, dict, dict_size, level);
}

size_t ZSTD_compress_usingCDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                                size_t src_size, const ZSTD_CDict* cdict) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  ScopedAllocationTag site(Tag(AllocationSite::kCompressUsingCDict));
  if (Runtime* rt = ForRouting(route.pooled)) {
    size_t result = 0;
    if (rt->CompressUsingCDict(*route.copy, cctx, dst, dst_capacity, src, src_size, cdict,
                               &result)) {
      return result;
    }
  }
  return Call(route.copy->ZSTD_compress_usingCDict, kGenericError, cctx, dst, dst_capacity, src,
              src_size, cdict);
}

size_t ZDICT_trainFromBuffer(void* dict_buffer, size_t dict_capacity, const void* samples,
                             const size_t* sample_sizes, unsigned sample_count) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  ScopedAllocationTag site(Tag(AllocationSite::kTrainDictionary));
  InsideDictionaryTraining training;
  return Call(route.copy->ZDICT_trainFromBuffer, kGenericError, dict_buffer, dict_capacity, samples,
              sample_sizes, sample_count);
}

size_t ZDICT_finalizeDictionary(void* dst, size_t dst_capacity, const void* content,
                                size_t content_size, const void* samples,
                                const size_t* sample_sizes, unsigned sample_count,
                                ZDICT_params_t parameters) {
  const auto route = ZstdRoutes().For(__builtin_return_address(0));
  ScopedAllocationTag site(Tag(AllocationSite::kTrainDictionary));
  InsideDictionaryTraining training;
  return Call(route.copy->ZDICT_finalizeDictionary, kGenericError, dst, dst_capacity, content,
              content_size, samples, sample_sizes, sample_count, parameters);
}

}  // extern "C"

// ---------------------------------------------------------------- the runtime's side

// What the entry points above ask of the runtime: a lease parked in its pool
// and handed out as the bare handle, and the way back from that handle to
// the lease (ParkedContextBehind, compression/zstd_contexts.h).
namespace rockpool::legacy::internal {

ZSTD_CCtx* Runtime::LeaseCCtx() noexcept {
  if (!EnsurePools()) return nullptr;
  InsideRockpool inside;
  ScopedAllocationTag site(Tag(AllocationSite::kCreateCCtx));
  // Measured (zstd_churn_test, size classes off): the contexts of
  // dictionary training grow to ~0.5 MB (level 3, 16 KiB dictionary);
  // shared with RocksDB's table builders they were shrunk and regrown:
  // ZDICT_* made 69% of the pooled CCtx bytes in steady state. Their own
  // class (plus routing the trainer's ZSTD_compress_usingCDict calls)
  // keeps every size put.
  ZstdKey key;
  if (InsideDictionaryTraining::active() && ZstdSizeClassesOn()) key.role = kTraining;
  absl::StatusOr<ZstdCompressPool::Lease> lease = pools().zstd_compress().Acquire(key);
  if (!lease.ok()) return nullptr;
  return pools().zstd_compress().Park(*std::move(lease))->get();
}

ZstdCompressContext* Runtime::LeasedCCtx(const ZstdCopy& copy,
                                         const ZSTD_CCtx* cctx) const noexcept {
  if (cctx == nullptr || !copy.custom_mem.ok) return nullptr;
  return ParkedContextBehind<ZstdCompressContext>(cctx, copy.custom_mem.cctx);
}

bool Runtime::ReturnCCtx(const ZstdCopy& copy, ZSTD_CCtx* cctx) noexcept {
  ZstdCompressContext* context = LeasedCCtx(copy, cctx);
  if (context == nullptr) return false;
  ZstdCompressPool::Lease lease = pools().zstd_compress().Unpark(context);
  if (lease == nullptr) return false;  // another pool's context
  // Workers set through some other API (e.g. CCtx params): never pool a
  // context that may own a worker pool.
  int workers = 0;
  if (!copy.ZSTD_isError(copy.ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers)) &&
      workers != 0) {
    lease->set_discard_when_unparked();
  }
  ScopedAllocationTag site(Tag(AllocationSite::kFreeCCtx));
  Finish(pools().zstd_compress(), std::move(lease));
  return true;
}

void Runtime::NoteCCtxWorkers(const ZstdCopy& copy, ZSTD_CCtx* cctx) noexcept {
  if (ZstdCompressContext* context = LeasedCCtx(copy, cctx)) context->set_discard_when_unparked();
}

ZSTD_DCtx* Runtime::LeaseDCtx() noexcept {
  if (!EnsurePools()) return nullptr;
  InsideRockpool inside;
  absl::StatusOr<ZstdDecompressPool::Lease> lease = pools().zstd_decompress().Acquire(ZstdKey{});
  if (!lease.ok()) return nullptr;
  return pools().zstd_decompress().Park(*std::move(lease))->get();
}

bool Runtime::ReturnDCtx(const ZstdCopy& copy, ZSTD_DCtx* dctx) noexcept {
  if (dctx == nullptr || !copy.custom_mem.ok) return false;
  ZstdDecompressContext* context =
      ParkedContextBehind<ZstdDecompressContext>(dctx, copy.custom_mem.dctx);
  if (context == nullptr) return false;
  ZstdDecompressPool::Lease lease = pools().zstd_decompress().Unpark(context);
  if (lease == nullptr) return false;
  Finish(pools().zstd_decompress(), std::move(lease));
  return true;
}

}  // namespace rockpool::legacy::internal
