#include "tests/rocksdb_plugin/native/library_counters.h"

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace rockpool::testing {
namespace {

AllocationStats& Stats() {
  static AllocationStats* stats = new AllocationStats();
  return *stats;
}

// Thread-safe: only the atomic AllocationStats are shared; each block
// carries its size in a header.
constexpr size_t kHeader = alignof(std::max_align_t);

void* Alloc(void*, size_t size) {
  void* raw = std::malloc(size + kHeader);
  if (raw == nullptr) return nullptr;
  std::memcpy(raw, &size, sizeof(size));
  Stats().OnAllocate(size);
  return static_cast<char*>(raw) + kHeader;
}

void Free(void*, void* p) {
  if (p == nullptr) return;
  void* raw = static_cast<char*>(p) - kHeader;
  size_t size;
  std::memcpy(&size, raw, sizeof(size));
  Stats().OnFree(size);
  std::free(raw);
}

void* ZlibAlloc(void* opaque, unsigned items, unsigned size) {
  return Alloc(opaque, static_cast<size_t>(items) * size);
}

}  // namespace

ZSTD_customMem CountingMem() { return ZSTD_customMem{&Alloc, &Free, nullptr}; }

void CountingZalloc(z_stream* strm) {
  strm->zalloc = &ZlibAlloc;
  strm->zfree = &Free;
  strm->opaque = nullptr;
}

AllocationCounts BuiltinLibraryCounts() { return Stats().Read(); }

}  // namespace rockpool::testing

namespace rockpool::testing {
ZSTD_customMem CountingMem();
void CountingZalloc(z_stream* strm);
}  // namespace rockpool::testing

using rockpool::testing::CountingMem;
using rockpool::testing::CountingZalloc;

extern "C" {

// The real functions, reached through --wrap.
int __real_deflateInit2_(z_streamp, int, int, int, int, int, const char*, int);
int __real_inflateInit2_(z_streamp, int, const char*, int);

ZSTD_CCtx* __wrap_ZSTD_createCCtx(void) { return ZSTD_createCCtx_advanced(CountingMem()); }
ZSTD_DCtx* __wrap_ZSTD_createDCtx(void) { return ZSTD_createDCtx_advanced(CountingMem()); }

int __wrap_deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level,
                         int strategy, const char* version, int stream_size) {
  if (strm != nullptr && strm->zalloc == Z_NULL && strm->zfree == Z_NULL) CountingZalloc(strm);
  return __real_deflateInit2_(strm, level, method, window_bits, mem_level, strategy, version,
                              stream_size);
}

int __wrap_inflateInit2_(z_streamp strm, int window_bits, const char* version, int stream_size) {
  if (strm != nullptr && strm->zalloc == Z_NULL && strm->zfree == Z_NULL) CountingZalloc(strm);
  return __real_inflateInit2_(strm, window_bits, version, stream_size);
}

}  // extern "C"
