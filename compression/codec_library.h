// The codec-library functions the pools call, as one table per codec.
//
// The pools and their contexts (zstd_contexts.h, zlib_contexts.h,
// lz4_contexts.h) never name a codec function directly: they call the table they were built with.
// A process can hold several copies of a codec (an executable that exports
// its own zlib, a module that bundles zstd), and a context must be created,
// reset and freed only by the copy that made it. The legacy face fills these
// tables at run time from the one copy it has proven coherent
// (rocksdb_plugin/legacy/codec_routes.h), so its objects link no codec
// library at all; everything else (the native face, the tools, the tests)
// uses DirectZstd()/DirectZlib()/DirectLz4() (DirectCodecLibraries()), bound at link time
// (compression/direct_codec_library.cc).
//
// Each list is an X-macro over the functions' own names, so a table's
// members read like the calls they replace (`lib.ZSTD_CCtx_reset(...)`) and
// a resolver can fill a table by name without repeating the list.
#ifndef ROCKPOOL_COMPRESSION_CODEC_LIBRARY_H_
#define ROCKPOOL_COMPRESSION_CODEC_LIBRARY_H_

#ifndef ZSTD_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_create*_advanced, ZSTD_CCtx_getParameter
#endif
#include <lz4.h>
#include <lz4hc.h>
#include <zlib.h>
#include <zstd.h>

namespace rockpool {

// What ZstdCompressPolicy/ZstdDecompressPolicy and their contexts call.
#define ROCKPOOL_ZSTD_LIBRARY_FUNCTIONS(X) \
  X(ZSTD_versionNumber)                    \
  X(ZSTD_isError)                          \
  X(ZSTD_getErrorName)                     \
  X(ZSTD_createCCtx_advanced)              \
  X(ZSTD_freeCCtx)                         \
  X(ZSTD_CCtx_reset)                       \
  X(ZSTD_CCtx_setParameter)                \
  X(ZSTD_CCtx_getParameter)                \
  X(ZSTD_createDCtx_advanced)              \
  X(ZSTD_freeDCtx)                         \
  X(ZSTD_DCtx_reset)

// What DeflatePolicy/InflatePolicy and their contexts call. (deflateInit2
// and inflateInit2 are macros over these.)
#define ROCKPOOL_ZLIB_LIBRARY_FUNCTIONS(X) \
  X(zlibVersion)                           \
  X(zError)                                \
  X(deflateInit2_)                         \
  X(deflateReset)                          \
  X(deflateEnd)                            \
  X(inflateInit2_)                         \
  X(inflateReset2)                         \
  X(inflateEnd)

// What Lz4Policy/Lz4HcPolicy and the LZ4 block codec call. The states are
// sized by the copy itself (LZ4_sizeofState*: LZ4_MEMORY_USAGE is a build
// option of liblz4) and initialised in place (LZ4_initStream*, v1.9.0+).
#define ROCKPOOL_LZ4_LIBRARY_FUNCTIONS(X) \
  X(LZ4_versionNumber)                    \
  X(LZ4_compressBound)                    \
  X(LZ4_sizeofState)                      \
  X(LZ4_initStream)                       \
  X(LZ4_loadDict)                         \
  X(LZ4_compress_fast_continue)           \
  X(LZ4_sizeofStateHC)                    \
  X(LZ4_initStreamHC)                     \
  X(LZ4_resetStreamHC_fast)               \
  X(LZ4_loadDictHC)                       \
  X(LZ4_compress_HC_continue)             \
  X(LZ4_decompress_safe_usingDict)

#define ROCKPOOL_CODEC_LIBRARY_MEMBER(name) decltype(&::name) name = nullptr;

struct ZstdLibrary {
  ROCKPOOL_ZSTD_LIBRARY_FUNCTIONS(ROCKPOOL_CODEC_LIBRARY_MEMBER)
};

struct ZlibLibrary {
  ROCKPOOL_ZLIB_LIBRARY_FUNCTIONS(ROCKPOOL_CODEC_LIBRARY_MEMBER)
};

struct Lz4Library {
  ROCKPOOL_LZ4_LIBRARY_FUNCTIONS(ROCKPOOL_CODEC_LIBRARY_MEMBER)
};

#undef ROCKPOOL_CODEC_LIBRARY_MEMBER

// The tables a set of pools is built with (CompressionPools).
struct CodecLibraries {
  const ZstdLibrary* zstd = nullptr;
  const ZlibLibrary* zlib = nullptr;
  const Lz4Library* lz4 = nullptr;
};

// The copies this binary links (compression/direct_codec_library.cc, in
// :direct_codec_library, which links libzstd and libz). Declared here so a
// pool built without a table names them; only binaries that depend on
// :direct_codec_library may do that (a link error says so otherwise).
const ZstdLibrary& DirectZstd();
const ZlibLibrary& DirectZlib();
const Lz4Library& DirectLz4();
inline CodecLibraries DirectCodecLibraries() {
  return {&DirectZstd(), &DirectZlib(), &DirectLz4()};
}

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_CODEC_LIBRARY_H_
