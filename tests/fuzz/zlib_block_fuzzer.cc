// Fuzz target: zlib blocks in RocksDB's format (varint32 size | raw
// deflate), decoded through the pooled ZlibBlockCodec without and with a
// dictionary. Same checks as the zstd target.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compression/block_format.h"
#include "tests/fuzz/codec_fuzz_support.h"

using namespace rockpool;        // NOLINT
using namespace rockpool::fuzz;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CodecFuzzState& state = State();
  const std::string_view block = AsView(data, size);
  for (std::string_view dict : {std::string_view(), state.dictionary->raw()}) {
    ZlibBlockOptions options;
    options.level = 1;
    options.dictionary = dict;
    CheckBlockRoundTrip(
        block,
        [&](std::string_view b, std::string* out) {
          return state.codecs.zlib().Decompress(b, dict, out);
        },
        [&](std::string_view plain, std::string* out) {
          return state.codecs.zlib().Compress(plain, options, out);
        });
  }
  CheckZlibProbes(state);
  CheckPoolInvariants(state.pools);
  return 0;
}
