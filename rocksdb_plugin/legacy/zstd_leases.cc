// The legacy face's zstd contexts: ZSTD_createCCtx/ZSTD_createDCtx served
// from the pools, and their frees.
//
// A context handed to RocksDB is parked in its pool (the lease is kept in the
// pool's entry); the free call finds it through the customMem libzstd keeps
// inside every context (zstd_layout.h): if it names a CountingAllocator of a
// pooled context, parked in this runtime's pool, and that context's handle is
// the one being freed, it is ours. No table, lock or allocation per lease.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_getParameter, ZSTD_customMem

#include <zstd.h>

#include "compression/counting_allocator.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"
#include "rocksdb_plugin/legacy/zstd_layout.h"

namespace rockpool::legacy::internal {
namespace {

// The pooled context of type Context behind a libzstd handle, or null.
template <typename Context, typename Handle>
Context* PooledBehind(const Handle* handle, size_t custom_mem_offset) {
  const ZSTD_customMem mem = zstd_layout::CustomMemAt(handle, custom_mem_offset);
  Context* context = Context::FromCustomMem(mem.customAlloc, mem.opaque);
  if (context == nullptr || context->get() != handle || !context->parked()) return nullptr;
  return context;
}

}  // namespace

ZSTD_CCtx* Runtime::LeaseCCtx() noexcept {
  if (!zstd_layout_.ok) return nullptr;
  InsideRockpool inside;
  ScopedAllocationSite site(AllocationSite::kCreateCCtx);
  // Measured (zstd_churn_test, size classes off): the contexts of
  // dictionary training grow to ~0.5 MB (level 3, 16 KiB dictionary);
  // shared with RocksDB's table builders they were shrunk and regrown:
  // ZDICT_* made 69% of the pooled CCtx bytes in steady state. Their own
  // class (plus routing the trainer's ZSTD_compress_usingCDict calls)
  // keeps every size put.
  ZstdKey key;
  if (InsideDictionaryTraining::active() && g_zstd_size_classes.load(std::memory_order_relaxed)) {
    key.kind = ZstdKey::kTraining;
  }
  absl::StatusOr<ZstdCompressPool::Lease> lease = pools_.zstd_compress().Acquire(key);
  if (!lease.ok()) return nullptr;
  return pools_.zstd_compress().Park(*std::move(lease))->get();
}

ZstdCompressContext* Runtime::LeasedCCtx(const ZSTD_CCtx* cctx) const noexcept {
  if (cctx == nullptr || !zstd_layout_.ok) return nullptr;
  return PooledBehind<ZstdCompressContext>(cctx, zstd_layout_.cctx);
}

bool Runtime::ReturnCCtx(ZSTD_CCtx* cctx) noexcept {
  ZstdCompressContext* context = LeasedCCtx(cctx);
  if (context == nullptr) return false;
  ZstdCompressPool::Lease lease = pools_.zstd_compress().Unpark(context);
  if (lease == nullptr) return false;  // another pool's context
  // Workers set through some other API (e.g. CCtx params): never pool a
  // context that may own a worker pool.
  int workers = 0;
  if (!ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers)) && workers != 0) {
    lease->set_discard_when_unparked();
  }
  ScopedAllocationSite site(AllocationSite::kFreeCCtx);
  Finish(pools_.zstd_compress(), std::move(lease));
  return true;
}

void Runtime::NoteCCtxWorkers(ZSTD_CCtx* cctx) noexcept {
  if (ZstdCompressContext* context = LeasedCCtx(cctx)) context->set_discard_when_unparked();
}

ZSTD_DCtx* Runtime::LeaseDCtx() noexcept {
  if (!zstd_layout_.ok) return nullptr;
  InsideRockpool inside;
  absl::StatusOr<ZstdDecompressPool::Lease> lease = pools_.zstd_decompress().Acquire(ZstdKey{});
  if (!lease.ok()) return nullptr;
  return pools_.zstd_decompress().Park(*std::move(lease))->get();
}

bool Runtime::ReturnDCtx(ZSTD_DCtx* dctx) noexcept {
  if (dctx == nullptr || !zstd_layout_.ok) return false;
  ZstdDecompressContext* context = PooledBehind<ZstdDecompressContext>(dctx, zstd_layout_.dctx);
  if (context == nullptr) return false;
  ZstdDecompressPool::Lease lease = pools_.zstd_decompress().Unpark(context);
  if (lease == nullptr) return false;
  Finish(pools_.zstd_decompress(), std::move(lease));
  return true;
}

}  // namespace rockpool::legacy::internal
