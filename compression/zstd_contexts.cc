#include "compression/zstd_contexts.h"

#include <cstddef>
#include <new>

#include "absl/strings/str_cat.h"

namespace rockpool {
namespace {

static_assert(sizeof(ZstdCustomMemView) == sizeof(ZSTD_customMem));
static_assert(offsetof(ZstdCustomMemView, alloc) == offsetof(ZSTD_customMem, customAlloc));
static_assert(offsetof(ZstdCustomMemView, free) == offsetof(ZSTD_customMem, customFree));
static_assert(offsetof(ZstdCustomMemView, opaque) == offsetof(ZSTD_customMem, opaque));

}  // namespace

void* ZstdContext::Alloc(void* opaque, size_t size) {
  return static_cast<ZstdContext*>(opaque)->allocator_.Allocate(size);
}

void ZstdContext::Free(void* opaque, void* address) {
  static_cast<ZstdContext*>(opaque)->allocator_.Free(address);
}

ZstdCompressContext::~ZstdCompressContext() {
  if (cctx_ != nullptr) lib_->ZSTD_freeCCtx(cctx_);
}

ZstdDecompressContext::~ZstdDecompressContext() {
  if (dctx_ != nullptr) lib_->ZSTD_freeDCtx(dctx_);
}

absl::Status EnforceSingleThreaded(const ZstdLibrary& lib, ZSTD_CCtx* cctx) {
  // libzstd may be built without multithreading, where nbWorkers is not a
  // settable parameter and is 0 by construction.
  const size_t set = lib.ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 0);
  int workers = -1;
  const size_t get = lib.ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers);
  if (lib.ZSTD_isError(get)) {
    if (lib.ZSTD_isError(set)) return absl::OkStatus();  // single-threaded build
    return absl::InternalError(
        absl::StrCat("zstd: reading nbWorkers: ", lib.ZSTD_getErrorName(get)));
  }
  if (workers != 0) {
    return absl::InternalError(absl::StrCat("zstd: nbWorkers is ", workers, ", want 0"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ZstdCompressContext>> ZstdCompressPolicy::Create(
    const ZstdKey&, AllocationStats* stats) {
  std::unique_ptr<ZstdCompressContext> context(new (std::nothrow) ZstdCompressContext(lib_, stats));
  if (context == nullptr) return absl::ResourceExhaustedError("ZstdCompressContext: out of memory");
  context->cctx_ = lib_->ZSTD_createCCtx_advanced(context->custom_mem());
  if (context->cctx_ == nullptr) {
    return absl::ResourceExhaustedError("zstd: cannot allocate a compression context");
  }
  if (absl::Status s = EnforceSingleThreaded(*lib_, context->cctx_); !s.ok()) return s;
  return context;
}

absl::Status ZstdCompressPolicy::ResetFailed(size_t zstd_error) const {
  return absl::InternalError(
      absl::StrCat("zstd: resetting a compression context: ", lib_->ZSTD_getErrorName(zstd_error)));
}

absl::Status ZstdCompressPolicy::WorkersAfterReset(int workers) {
  return absl::InternalError(absl::StrCat("zstd: nbWorkers is ", workers, " after reset"));
}

absl::StatusOr<std::unique_ptr<ZstdDecompressContext>> ZstdDecompressPolicy::Create(
    const ZstdKey&, AllocationStats* stats) {
  std::unique_ptr<ZstdDecompressContext> context(new (std::nothrow)
                                                     ZstdDecompressContext(lib_, stats));
  if (context == nullptr)
    return absl::ResourceExhaustedError("ZstdDecompressContext: out of memory");
  context->dctx_ = lib_->ZSTD_createDCtx_advanced(context->custom_mem());
  if (context->dctx_ == nullptr) {
    return absl::ResourceExhaustedError("zstd: cannot allocate a decompression context");
  }
  return context;
}

absl::Status ZstdDecompressPolicy::ResetUsed(ZstdDecompressContext& context) {
  context.needs_reset_ = false;
  const size_t r = lib_->ZSTD_DCtx_reset(context.dctx_, ZSTD_reset_session_and_parameters);
  if (lib_->ZSTD_isError(r)) {
    return absl::InternalError(
        absl::StrCat("zstd: resetting a decompression context: ", lib_->ZSTD_getErrorName(r)));
  }
  return absl::OkStatus();
}

}  // namespace rockpool
