// LZ4 stream lifecycle, served from rockpool's pools.
//
// LZ4_createStream() / LZ4_createStreamHC() return the stream of a lease from
// the process-wide Lz4Pool / Lz4HcPool, exactly as new as the library's own
// (compression/lz4_contexts.h); LZ4_freeStream() / LZ4_freeStreamHC() give
// it back (the pool re-initialises it). RocksDB 7.8.3 (and every release
// through 10.5) creates and frees one per LZ4/LZ4HC block it writes.
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
using rockpool::legacy::Lz4Copy;
using rockpool::legacy::Lz4Routes;
using rockpool::legacy::internal::InsideRockpool;
using rockpool::legacy::internal::Runtime;
using rockpool::legacy::internal::ShouldPool;

// LZ4_createStream[HC] from `caller`: a pooled stream if the caller reaches
// the bound copy and pooling is on, else the caller's copy's own.
template <typename State>
State* CreateStream(const void* caller, State* (*Lz4Copy::*create)(),
                    State* (Runtime::*lease)() noexcept) {
  const auto route = Lz4Routes().For(caller);
  if (route.pooled && ShouldPool()) {
    if (Runtime* rt = Runtime::Get()) {
      if (State* stream = (rt->*lease)()) return stream;
    }
  }
  return Call<State*>(route.copy->*create, nullptr);
}

// LZ4_freeStream[HC]: back to its pool if rockpool handed it out. Asked on
// every route: the registry tells ours from the rest, so a pooled stream
// never reaches a library's free(), whoever frees it.
template <typename State>
int FreeStream(const void* caller, int (*Lz4Copy::*free)(State*), State* stream) {
  const auto route = Lz4Routes().For(caller);
  if (stream != nullptr && !InsideRockpool::active()) {
    if (Runtime* rt = Runtime::Get(); rt != nullptr && rt->ReturnLz4(stream)) return 0;
  }
  return Call(route.copy->*free, 0, stream);
}

}  // namespace

// Each call first asks which copy of liblz4 its caller reaches
// (codec_routes.h); only calls on the copy the pools are bound to are served
// from them.
extern "C" {

LZ4_stream_t* LZ4_createStream(void) {
  return CreateStream(__builtin_return_address(0), &Lz4Copy::LZ4_createStream, &Runtime::LeaseLz4);
}

int LZ4_freeStream(LZ4_stream_t* stream) {
  return FreeStream(__builtin_return_address(0), &Lz4Copy::LZ4_freeStream, stream);
}

LZ4_streamHC_t* LZ4_createStreamHC(void) {
  return CreateStream(__builtin_return_address(0), &Lz4Copy::LZ4_createStreamHC,
                      &Runtime::LeaseLz4Hc);
}

int LZ4_freeStreamHC(LZ4_streamHC_t* stream) {
  return FreeStream(__builtin_return_address(0), &Lz4Copy::LZ4_freeStreamHC, stream);
}

// RocksDB (7.x through 10.5) resets every stream LZ4_createStreamHC gave it:
// on a pooled stream nobody has used yet, that second 256 KiB clear is
// skipped (Runtime::ResetFreshLz4Hc); every other stream gets liblz4's own.
void LZ4_resetStreamHC(LZ4_streamHC_t* stream, int level) {
  const auto route = Lz4Routes().For(__builtin_return_address(0));
  if (route.pooled && stream != nullptr && !InsideRockpool::active()) {
    if (Runtime* rt = Runtime::Get();
        rt != nullptr && rt->ResetFreshLz4Hc(*route.copy, stream, level)) {
      return;
    }
  }
  if (route.copy->LZ4_resetStreamHC != nullptr) route.copy->LZ4_resetStreamHC(stream, level);
}

}  // extern "C"
