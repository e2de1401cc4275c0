// The codec tables bound at link time: the zstd and zlib this binary links.
#include "compression/codec_library.h"

namespace rockpool {
namespace {

#define ROCKPOOL_DIRECT(name) lib.name = &::name;

ZstdLibrary MakeDirectZstd() {
  ZstdLibrary lib;
  ROCKPOOL_ZSTD_LIBRARY_FUNCTIONS(ROCKPOOL_DIRECT)
  return lib;
}

ZlibLibrary MakeDirectZlib() {
  ZlibLibrary lib;
  ROCKPOOL_ZLIB_LIBRARY_FUNCTIONS(ROCKPOOL_DIRECT)
  return lib;
}

#undef ROCKPOOL_DIRECT

}  // namespace

const ZstdLibrary& DirectZstd() {
  static const ZstdLibrary lib = MakeDirectZstd();
  return lib;
}

const ZlibLibrary& DirectZlib() {
  static const ZlibLibrary lib = MakeDirectZlib();
  return lib;
}

}  // namespace rockpool
