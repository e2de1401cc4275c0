#include "rocksdb_plugin/legacy/zstd_layout.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "compression/zstd_contexts.h"

namespace rockpool::legacy::zstd_layout {
namespace {

// Records the first allocation of a context's creation: its struct.
struct Probe {
  void* first = nullptr;
  size_t first_size = 0;
};

// Zeroed, so that only what libzstd writes can match (a stale copy of the
// marker in reused heap memory would look like a second customMem).
void* ProbeAlloc(void* opaque, size_t size) {
  auto* probe = static_cast<Probe*>(opaque);
  void* p = std::calloc(1, size);
  if (probe->first == nullptr) {
    probe->first = p;
    probe->first_size = size;
  }
  return p;
}

void ProbeFree(void*, void* address) { std::free(address); }

// The one offset in [context, context + size) holding `mem`; nullopt if it
// is not there, or there more than once.
std::optional<size_t> FindIn(const void* context, size_t size, const ZSTD_customMem& mem) {
  std::optional<size_t> found;
  for (size_t offset = 0; offset + sizeof(mem) <= size; offset += alignof(void*)) {
    const ZstdCustomMemView at = ZstdCustomMemAt(context, offset);
    if (at.alloc == mem.customAlloc && at.free == mem.customFree && at.opaque == mem.opaque) {
      if (found) return std::nullopt;
      found = offset;
    }
  }
  return found;
}

template <typename Create, typename Free>
std::optional<size_t> Locate(const char* what, Create create, Free free_context,
                             std::string* detail) {
  Probe probe;
  const ZSTD_customMem mem{&ProbeAlloc, &ProbeFree, &probe};
  void* context = create(mem);
  if (context == nullptr) {
    absl::StrAppend(detail, "zstd layout: cannot create a ", what, "; ");
    return std::nullopt;
  }
  std::optional<size_t> offset;
  if (probe.first != context) {
    absl::StrAppend(detail, "zstd layout: a ", what, " is not its first allocation; ");
  } else {
    offset = FindIn(context, probe.first_size, mem);
    if (!offset) absl::StrAppend(detail, "zstd layout: customMem not found once in a ", what, "; ");
  }
  free_context(context);
  return offset;
}

}  // namespace

absl::StatusOr<CustomMemOffsets> FindCustomMem(const ZstdLibrary& z) {
  std::string failures;  // each failed Locate appends "...; "
  const std::optional<size_t> cctx = Locate(
      "ZSTD_CCtx", [&](ZSTD_customMem mem) -> void* { return z.ZSTD_createCCtx_advanced(mem); },
      [&](void* c) { z.ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(c)); }, &failures);
  const std::optional<size_t> dctx = Locate(
      "ZSTD_DCtx", [&](ZSTD_customMem mem) -> void* { return z.ZSTD_createDCtx_advanced(mem); },
      [&](void* c) { z.ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(c)); }, &failures);
  if (!cctx || !dctx) {
    return absl::FailedPreconditionError(absl::StripSuffix(failures, "; "));
  }
  return CustomMemOffsets{.ok = true, .cctx = *cctx, .dctx = *dctx};
}

}  // namespace rockpool::legacy::zstd_layout
