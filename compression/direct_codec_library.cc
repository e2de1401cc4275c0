// The codec tables bound at link time: the zstd, zlib and lz4 this binary links.
#include "compression/codec_library.h"

namespace rockpool {
namespace {

#define ROCKPOOL_DIRECT(name) lib.name = &::name;

template <typename Library>
Library MakeDirect();

template <>
ZstdLibrary MakeDirect() {
  ZstdLibrary lib;
  ROCKPOOL_ZSTD_LIBRARY_FUNCTIONS(ROCKPOOL_DIRECT)
  return lib;
}

template <>
ZlibLibrary MakeDirect() {
  ZlibLibrary lib;
  ROCKPOOL_ZLIB_LIBRARY_FUNCTIONS(ROCKPOOL_DIRECT)
  return lib;
}

template <>
Lz4Library MakeDirect() {
  Lz4Library lib;
  ROCKPOOL_LZ4_LIBRARY_FUNCTIONS(ROCKPOOL_DIRECT)
  return lib;
}

#undef ROCKPOOL_DIRECT

template <typename Library>
const Library& Direct() {
  static const Library lib = MakeDirect<Library>();
  return lib;
}

}  // namespace

const ZstdLibrary& DirectZstd() { return Direct<ZstdLibrary>(); }
const ZlibLibrary& DirectZlib() { return Direct<ZlibLibrary>(); }
const Lz4Library& DirectLz4() { return Direct<Lz4Library>(); }

}  // namespace rockpool
