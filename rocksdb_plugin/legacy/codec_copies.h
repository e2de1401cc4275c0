// One copy of a codec in this process (libzstd.so.1, an executable's own
// zlib, a module's bundled zstd) and the functions rockpool calls in it.
//
// The rule (safe in every process): every call rockpool serves or forwards runs exactly
// the copy its caller would have reached without rockpool, and every context
// or stream is touched only by the copy that made it. So the interposers
// resolve a ZstdCopy/ZlibCopy/Lz4Copy per caller (codec_routes.h) and forward through
// it; the pools run on the one copy they were bound to. A copy is resolved
// name by name the way the dynamic linker would bind the caller's references
// (loaded_objects.h) and every function is checked with the loader to live
// in the copy's object: a name that resolves elsewhere is left null, and the
// copy is then never pooled.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_COPIES_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_COPIES_H_

#include <zdict.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "compression/codec_library.h"
#include "rocksdb_plugin/legacy/entry_points.h"  // generated from entry_points.bzl
#include "rocksdb_plugin/legacy/loaded_objects.h"
#include "rocksdb_plugin/legacy/zstd_layout.h"

namespace rockpool::legacy {

// What the interposers forward or call beyond the pools' table
// (compression/codec_library.h lists the rest).
#define ROCKPOOL_ZSTD_INTERPOSER_FUNCTIONS(X) \
  X(ZSTD_createCCtx)                          \
  X(ZSTD_createDCtx)                          \
  X(ZSTD_CCtx_refThreadPool)                  \
  X(ZSTD_compress_usingDict)                  \
  X(ZSTD_compress_usingCDict)                 \
  X(ZSTD_compressBound)                       \
  X(ZSTD_maxCLevel)                           \
  X(ZSTD_sizeof_CDict)                        \
  X(ZDICT_trainFromBuffer)                    \
  X(ZDICT_finalizeDictionary)

#define ROCKPOOL_ZLIB_INTERPOSER_FUNCTIONS(X) \
  X(deflateInit_)                             \
  X(deflate)                                  \
  X(deflateParams)                            \
  X(deflateSetHeader)                         \
  X(deflateCopy)                              \
  X(inflateInit_)                             \
  X(inflateValidate)                          \
  X(inflateCopy)

#define ROCKPOOL_LZ4_INTERPOSER_FUNCTIONS(X) \
  X(LZ4_createStream)                        \
  X(LZ4_freeStream)                          \
  X(LZ4_createStreamHC)                      \
  X(LZ4_freeStreamHC)                        \
  X(LZ4_resetStreamHC)

#define ROCKPOOL_CODEC_COPY_MEMBER(name) decltype(&::name) name = nullptr;
#define ROCKPOOL_CODEC_ENTRY_POINT_NAME(name) #name,

// A copy's Visit(v): calls v(name, pointer member, pool) for every function,
// the pool table's (pool = true) first, then the interposers' own.
#define ROCKPOOL_CODEC_COPY_POOL(name) v(#name, name, /*pool=*/true);
#define ROCKPOOL_CODEC_COPY_OTHER(name) v(#name, name, /*pool=*/false);
#define ROCKPOOL_CODEC_COPY_VISIT(LIBRARY_FUNCTIONS, INTERPOSER_FUNCTIONS) \
  template <typename Visitor>                                              \
  void Visit(Visitor&& v) {                                                \
    LIBRARY_FUNCTIONS(ROCKPOOL_CODEC_COPY_POOL)                            \
    INTERPOSER_FUNCTIONS(ROCKPOOL_CODEC_COPY_OTHER)                        \
  }

// What every copy records besides its functions.
struct CopyOrigin {
  LoadedObject object;        // where the copy lives
  bool global = false;        // found in the global scope (else a caller's local scope)
  bool private_copy = false;  // lives in the object that calls it, found only locally
  bool complete = false;      // every pool function resolved inside `object`
  std::string incomplete;     // if not: which name, and where it resolved instead
};

struct ZstdCopy : ZstdLibrary, CopyOrigin {
  ROCKPOOL_ZSTD_INTERPOSER_FUNCTIONS(ROCKPOOL_CODEC_COPY_MEMBER)
  using Library = ZstdLibrary;
  // Where this copy keeps a context's customMem (set when bound).
  zstd_layout::CustomMemOffsets custom_mem;
  static constexpr const char* kCodec = "zstd";
  static constexpr const char* kAnchor = "ZSTD_createCCtx";
  // The entry points whose first global definition must be rockpool's for
  // the codec to be served at all (entry_points.bzl).
  static constexpr const char* kRequiredEntryPoints[] = {
      ROCKPOOL_ZSTD_REQUIRED_ENTRY_POINTS(ROCKPOOL_CODEC_ENTRY_POINT_NAME)};
  ROCKPOOL_CODEC_COPY_VISIT(ROCKPOOL_ZSTD_LIBRARY_FUNCTIONS, ROCKPOOL_ZSTD_INTERPOSER_FUNCTIONS)
};

struct ZlibCopy : ZlibLibrary, CopyOrigin {
  ROCKPOOL_ZLIB_INTERPOSER_FUNCTIONS(ROCKPOOL_CODEC_COPY_MEMBER)
  using Library = ZlibLibrary;
  static constexpr const char* kCodec = "zlib";
  static constexpr const char* kAnchor = "deflateInit2_";
  static constexpr const char* kRequiredEntryPoints[] = {
      ROCKPOOL_ZLIB_REQUIRED_ENTRY_POINTS(ROCKPOOL_CODEC_ENTRY_POINT_NAME)};
  ROCKPOOL_CODEC_COPY_VISIT(ROCKPOOL_ZLIB_LIBRARY_FUNCTIONS, ROCKPOOL_ZLIB_INTERPOSER_FUNCTIONS)
};

struct Lz4Copy : Lz4Library, CopyOrigin {
  ROCKPOOL_LZ4_INTERPOSER_FUNCTIONS(ROCKPOOL_CODEC_COPY_MEMBER)
  // What the copy's LZ4_initStreamHC leaves after an LZ4_streamHC_t's
  // tables (its "header"), recorded by the layout check (lz4_routing.cc):
  // how a pooled stream nobody has used yet is told apart.
  static constexpr size_t kHcHeaderOffset = offsetof(LZ4HC_CCtx_internal, end);
  static constexpr size_t kHcHeaderBytes = sizeof(LZ4HC_CCtx_internal) - kHcHeaderOffset;
  unsigned char fresh_hc_header[kHcHeaderBytes] = {};
  bool fresh_hc_header_known = false;
  using Library = Lz4Library;
  static constexpr const char* kCodec = "lz4";
  static constexpr const char* kAnchor = "LZ4_createStream";
  static constexpr const char* kRequiredEntryPoints[] = {
      ROCKPOOL_LZ4_REQUIRED_ENTRY_POINTS(ROCKPOOL_CODEC_ENTRY_POINT_NAME)};
  ROCKPOOL_CODEC_COPY_VISIT(ROCKPOOL_LZ4_LIBRARY_FUNCTIONS, ROCKPOOL_LZ4_INTERPOSER_FUNCTIONS)
};

#undef ROCKPOOL_CODEC_COPY_MEMBER
#undef ROCKPOOL_CODEC_ENTRY_POINT_NAME
#undef ROCKPOOL_CODEC_COPY_VISIT
#undef ROCKPOOL_CODEC_COPY_POOL
#undef ROCKPOOL_CODEC_COPY_OTHER

// Calls `fn` (a function of a copy), or fails the way the library does
// when the copy does not have it: what every interposer forwards through.
template <typename R, typename... Params, typename... Args>
R Call(R (*fn)(Params...), R failure, Args... args) {
  return fn != nullptr ? fn(args...) : failure;
}

// Resolves the copy `caller` reaches (its anchor function decides the
// object; with allow_fallback, a caller whose scope has none, as after a
// tail call from another object, gets the process's only other definition
// if there is exactly one). NotFound, naming the caller, if it reaches no
// copy.
template <typename Copy>
absl::Status ResolveCopy(const LoadedObject& caller, bool allow_fallback, Copy* copy);

// Whether `copy` can be run coherently: every function its object exports
// must bind, for the object's own calls, to the object itself or to
// rockpool (which forwards back to it). Otherwise FailedPrecondition naming
// the object that takes a name over ("/usr/bin/node defines deflateReset
// itself"), or Unavailable if the copy's symbol table cannot be read.
absl::Status CheckCoherent(const CopyOrigin& copy);

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_COPIES_H_
