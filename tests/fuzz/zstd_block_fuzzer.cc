// Fuzz target: zstd blocks in RocksDB's format (varint32 size | zstd frame),
// decoded through the pooled ZstdBlockCodec without and with a dictionary.
// Whatever decodes must match its size prefix and survive a round trip;
// whatever fails must fail as bad input; the reused contexts must stay
// healthy and the pool's books balanced.
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
  for (const ZstdDictionary* dict :
       {static_cast<const ZstdDictionary*>(nullptr), state.dictionary.get()}) {
    CheckBlockRoundTrip(
        block,
        [&](std::string_view b, std::string* out) {
          return state.codecs.zstd().Decompress(b, dict, out);
        },
        [&](std::string_view plain, std::string* out) {
          return state.codecs.zstd().Compress(plain, 1, dict, out);
        });
  }
  CheckZstdProbes(state);
  CheckPoolInvariants(state.pools);
  return 0;
}
