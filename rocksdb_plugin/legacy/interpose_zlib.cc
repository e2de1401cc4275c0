// zlib stream lifecycle, served from rockpool's pools by transplanting state.
//
// RocksDB keeps its z_stream on the stack and calls deflateInit2_/deflateEnd
// per block (inflateInit2_/inflateEnd per block read). A z_stream is only a
// handle: the ~200 KB of deflate state (7 KB + window for inflate) hangs off
// strm->state. So on deflateInit2_ from a caller that asked for zlib's
// default allocator (zalloc and zfree null), rockpool leases a deflate
// context for {level, windowBits, memLevel, strategy} (Z_DEFAULT_COMPRESSION
// counted as 6), moves its state and allocator into the caller's z_stream and
// patches the state's back pointer: the stream is then exactly a freshly
// initialised one (the pooled state was created or deflateReset). On
// deflateEnd, the state moves back into its context and the lease returns to
// the pool (which deflateResets it); the return value is deflateEnd's
// (Z_DATA_ERROR when freed mid-stream). Inflate likewise, keyed by
// windowBits. See zlib_layout.h for the layout this relies on, checked at
// runtime; if the check fails every zlib call is forwarded.
//
// Each call first asks which copy of zlib its caller reaches
// (codec_routes.h); only calls on the copy the pools are bound to can be
// served from them. Streams with a caller-supplied allocator, bad versions or
// parameters, calls on any other copy, and all calls while pooling is off go
// to the caller's copy untouched. Calls that change what
// a reset cannot restore mark the lease to be destroyed at End instead of
// pooled: deflateParams (level/strategy: the pool key), deflateSetHeader
// (deflateReset keeps the gz_header pointer), inflateReset2 to another window,
// inflateValidate. deflateCopy/inflateCopy of a pooled stream give the copy
// plain malloc/free, so the copy never depends on a pooled context.
//
// No exception leaves these functions.
#include <zlib.h>

#include <cstdlib>

#include "compression/zlib_contexts.h"
#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace {

using rockpool::DeflateKey;
using rockpool::InflateKey;
// The caller's copy of zlib, and how a call reaches it.
using rockpool::legacy::Call;
using rockpool::legacy::ZlibRoutes;
// The runtime's zlib side (zlib_transplant.cc).
using rockpool::legacy::internal::DeflateSide;
using rockpool::legacy::internal::InflateSide;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;

constexpr int kDefaultMemLevel = 8;  // zlib's DEF_MEM_LEVEL (MAX_MEM_LEVEL >= 8)

// An init call rockpool may serve: default allocator, matching version and
// z_stream size (zlib returns Z_VERSION_ERROR otherwise; forwarding gets it).
bool Poolable(z_streamp strm, const char* version, int stream_size) {
  return strm != nullptr && strm->zalloc == Z_NULL && strm->zfree == Z_NULL && version != nullptr &&
         version[0] == ZLIB_VERSION[0] && stream_size == static_cast<int>(sizeof(z_stream));
}

// The runtime, if a call on `strm` (from a caller of the bound copy) may
// concern one of our states.
Runtime* ForStream(bool pooled, z_streamp strm) {
  if (!pooled || strm == nullptr || strm->state == Z_NULL || InsideRockpool::active()) {
    return nullptr;
  }
  return Runtime::Get();
}

// Marks strm's state, if ours, to be destroyed instead of pooled when it
// ends: its user changed it in a way a reset cannot undo.
template <typename Side>
void DiscardLater(bool pooled, z_streamp strm) {
  if (Runtime* rt = ForStream(pooled, strm)) {
    if (auto* context = rt->LeasedZlib<Side>(strm)) context->set_discard_when_unparked();
  }
}

// zlib's default allocator (zcalloc/zcfree are not exported).
voidpf PlainAlloc(voidpf, uInt items, uInt size) {
  return std::malloc(static_cast<size_t>(items) * size);
}
void PlainFree(voidpf, voidpf address) { std::free(address); }

bool TryDeflate(bool pooled, z_streamp strm, int level, int method, int window_bits, int mem_level,
                int strategy, const char* version, int stream_size) {
  if (!pooled || !ShouldPool() || method != Z_DEFLATED || !Poolable(strm, version, stream_size))
    return false;
  Runtime* rt = Runtime::Get();
  if (rt == nullptr) return false;
  DeflateKey key;
  key.level = level;
  key.window_bits = window_bits;
  key.mem_level = mem_level;
  key.strategy = strategy;
  return rt->LeaseZlib<DeflateSide>(strm, rockpool::NormalizeDeflateKey(key));
}

bool TryInflate(bool pooled, z_streamp strm, int window_bits, const char* version,
                int stream_size) {
  if (!pooled || !ShouldPool() || !Poolable(strm, version, stream_size)) return false;
  Runtime* rt = Runtime::Get();
  return rt != nullptr && rt->LeaseZlib<InflateSide>(strm, InflateKey{window_bits});
}

// Runs a copy with plain malloc/free in `source` so `dest` gets them.
template <typename CopyFn>
int CopyWithPlainAllocator(z_streamp dest, z_streamp source, CopyFn copy) {
  const alloc_func zalloc = source->zalloc;
  const free_func zfree = source->zfree;
  const voidpf opaque = source->opaque;
  source->zalloc = &PlainAlloc;
  source->zfree = &PlainFree;
  source->opaque = Z_NULL;
  const int rc = copy(dest, source);
  source->zalloc = zalloc;
  source->zfree = zfree;
  source->opaque = opaque;
  return rc;
}

}  // namespace

extern "C" {

int deflateInit2_(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy,
                  const char* version, int stream_size) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (TryDeflate(route.pooled, strm, level, method, windowBits, memLevel, strategy, version,
                 stream_size)) {
    return Z_OK;
  }
  return Call(route.copy->deflateInit2_, Z_MEM_ERROR, strm, level, method, windowBits, memLevel,
              strategy, version, stream_size);
}

int deflateInit_(z_streamp strm, int level, const char* version, int stream_size) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (TryDeflate(route.pooled, strm, level, Z_DEFLATED, MAX_WBITS, kDefaultMemLevel,
                 Z_DEFAULT_STRATEGY, version, stream_size)) {
    return Z_OK;
  }
  return Call(route.copy->deflateInit_, Z_MEM_ERROR, strm, level, version, stream_size);
}

int deflateEnd(z_streamp strm) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (Runtime* rt = ForStream(route.pooled, strm)) {
    int rc;
    if (rt->EndZlib<DeflateSide>(strm, &rc)) return rc;
  }
  return Call(route.copy->deflateEnd, Z_STREAM_ERROR, strm);
}

int deflateParams(z_streamp strm, int level, int strategy) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  DiscardLater<DeflateSide>(route.pooled, strm);
  return Call(route.copy->deflateParams, Z_STREAM_ERROR, strm, level, strategy);
}

int deflateSetHeader(z_streamp strm, gz_headerp head) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  DiscardLater<DeflateSide>(route.pooled, strm);
  return Call(route.copy->deflateSetHeader, Z_STREAM_ERROR, strm, head);
}

int deflateCopy(z_streamp dest, z_streamp source) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (route.copy->deflateCopy == nullptr) return Z_STREAM_ERROR;
  if (dest != nullptr) {
    if (Runtime* rt = ForStream(route.pooled, source);
        rt != nullptr && rt->LeasedZlib<DeflateSide>(source)) {
      return CopyWithPlainAllocator(dest, source, route.copy->deflateCopy);
    }
  }
  return route.copy->deflateCopy(dest, source);
}

int inflateInit2_(z_streamp strm, int windowBits, const char* version, int stream_size) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (TryInflate(route.pooled, strm, windowBits, version, stream_size)) return Z_OK;
  return Call(route.copy->inflateInit2_, Z_MEM_ERROR, strm, windowBits, version, stream_size);
}

int inflateInit_(z_streamp strm, const char* version, int stream_size) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (TryInflate(route.pooled, strm, MAX_WBITS, version, stream_size)) return Z_OK;
  return Call(route.copy->inflateInit_, Z_MEM_ERROR, strm, version, stream_size);
}

int inflateEnd(z_streamp strm) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (Runtime* rt = ForStream(route.pooled, strm)) {
    int rc;
    if (rt->EndZlib<InflateSide>(strm, &rc)) return rc;
  }
  return Call(route.copy->inflateEnd, Z_STREAM_ERROR, strm);
}

int inflateReset2(z_streamp strm, int windowBits) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (Runtime* rt = ForStream(route.pooled, strm)) {
    rockpool::InflateContext* leased = rt->LeasedZlib<InflateSide>(strm);
    if (leased != nullptr && leased->window_bits() != windowBits)
      leased->set_discard_when_unparked();
  }
  return Call(route.copy->inflateReset2, Z_STREAM_ERROR, strm, windowBits);
}

int inflateValidate(z_streamp strm, int check) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  DiscardLater<InflateSide>(route.pooled, strm);
  return Call(route.copy->inflateValidate, Z_STREAM_ERROR, strm, check);
}

int inflateCopy(z_streamp dest, z_streamp source) {
  const auto route = ZlibRoutes().For(__builtin_return_address(0));
  if (route.copy->inflateCopy == nullptr) return Z_STREAM_ERROR;
  if (dest != nullptr) {
    if (Runtime* rt = ForStream(route.pooled, source);
        rt != nullptr && rt->LeasedZlib<InflateSide>(source)) {
      return CopyWithPlainAllocator(dest, source, route.copy->inflateCopy);
    }
  }
  return route.copy->inflateCopy(dest, source);
}

}  // extern "C"
