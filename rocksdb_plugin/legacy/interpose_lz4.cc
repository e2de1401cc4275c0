// LZ4 stream lifecycle, served from rockpool's pools.
//
// LZ4_createStream() / LZ4_createStreamHC() return the stream of a lease from
// the process-wide Lz4Pool / Lz4HcPool, exactly as new as the library's own
// (compression/lz4_contexts.h); LZ4_freeStream() / LZ4_freeStreamHC() give
// it back (the pool re-initialises it). RocksDB 7.8.3 (and every release
// through 10.4) creates and frees one per LZ4/LZ4HC block it writes.
// Streams rockpool did not hand out are forwarded to liblz4 untouched, as is
// everything while pooling is off; lz4_routing.cc has the runtime's side.
//
// The decode stream (LZ4_createStreamDecode) is not interposed: 32 bytes,
// calloc'd, cheaper to allocate than to lease and find again.
//
// No exception leaves these functions; failures fall back to the library.
#include <lz4.h>
#include <lz4hc.h>

#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace {

using rockpool::legacy::Call;
using rockpool::legacy::Lz4Routes;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;

// The runtime, if a free may concern one of our streams. Asked on every
// route: the registry tells ours from the rest, so a stream rockpool handed
// out never reaches a library's free(), whoever frees it.
Runtime* ForFree() {
  if (InsideRockpool::active()) return nullptr;
  return Runtime::Get();
}

}  // namespace

// Each call first asks which copy of liblz4 its caller reaches
// (codec_routes.h); only calls on the copy the pools are bound to are served
// from them.
extern "C" {

LZ4_stream_t* LZ4_createStream(void) {
  const auto route = Lz4Routes().For(__builtin_return_address(0));
  if (route.pooled && ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (LZ4_stream_t* stream = rt->LeaseLz4()) return stream;
    }
  }
  return Call<LZ4_stream_t*>(route.copy->LZ4_createStream, nullptr);
}

int LZ4_freeStream(LZ4_stream_t* stream) {
  const auto route = Lz4Routes().For(__builtin_return_address(0));
  if (stream != nullptr) {
    if (Runtime* rt = ForFree(); rt != nullptr && rt->ReturnLz4(stream)) return 0;
  }
  return Call(route.copy->LZ4_freeStream, 0, stream);
}

LZ4_streamHC_t* LZ4_createStreamHC(void) {
  const auto route = Lz4Routes().For(__builtin_return_address(0));
  if (route.pooled && ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (LZ4_streamHC_t* stream = rt->LeaseLz4Hc()) return stream;
    }
  }
  return Call<LZ4_streamHC_t*>(route.copy->LZ4_createStreamHC, nullptr);
}

int LZ4_freeStreamHC(LZ4_streamHC_t* stream) {
  const auto route = Lz4Routes().For(__builtin_return_address(0));
  if (stream != nullptr) {
    if (Runtime* rt = ForFree(); rt != nullptr && rt->ReturnLz4(stream)) return 0;
  }
  return Call(route.copy->LZ4_freeStreamHC, 0, stream);
}

}  // extern "C"
