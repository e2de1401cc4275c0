// Where libzstd keeps a context's customMem, so the legacy face can tell its
// own ZSTD_CCtx/ZSTD_DCtx from any other without a lookup table.
//
// rockpool creates every pooled context with ZSTD_create*Ctx_advanced and a
// customMem of {ZstdContext::Alloc, ZstdContext::Free, the context}; libzstd stores that customMem
// inside the ZSTD_CCtx/ZSTD_DCtx struct (zstd_compress_internal.h, zstd_decompress_internal.h), at
// an offset its public headers do not give. FindCustomMem() finds the offset once on real contexts
// of the libzstd this process runs with: it creates a context with a customMem of marker values,
// checks that the struct is the first allocation (so its size is known) and that the marker appears
// in it exactly once. A free call then reads three pointers inside the context it was given (valid
// memory for any ZSTD_CCtx, ours or not) and compares them. If the check fails, zstd pooling stays
// off (every call forwards).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZSTD_LAYOUT_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZSTD_LAYOUT_H_

#include <cstddef>

#include "absl/status/statusor.h"

#include "compression/codec_library.h"  // ZstdLibrary (and zstd.h with ZSTD_customMem)

namespace rockpool::legacy::zstd_layout {

struct CustomMemOffsets {
  bool ok = false;  // found (FindCustomMem succeeded); false until then
  size_t cctx = 0;  // offset of customMem in ZSTD_CCtx
  size_t dctx = 0;  // offset of customMem in ZSTD_DCtx
};

// Runs the check through the library table `z` (a copy proven coherent
// first: the check runs it). FailedPrecondition names each context kind the
// check failed on, and why.
absl::StatusOr<CustomMemOffsets> FindCustomMem(const ZstdLibrary& z);

}  // namespace rockpool::legacy::zstd_layout

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZSTD_LAYOUT_H_
