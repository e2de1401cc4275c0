// Fuzz target: LZ4 and LZ4HC blocks in RocksDB's format (varint32 size | one
// LZ4 block; both types decode alike), decoded through Lz4BlockCodec without
// and with a dictionary. Same checks as the zstd target; the round trip
// alternates LZ4 and LZ4HC on the pooled streams, and the probes check that
// those streams, reused after every input, still write a new stream's bytes.
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
  // The input's first byte picks LZ4 or LZ4HC (levels 1-12) for the trip.
  const bool hc = size > 0 && (data[0] & 1) != 0;
  const int level = size > 0 ? 1 + data[0] % 12 : 1;
  for (std::string_view dict : {std::string_view(), state.dictionary->raw()}) {
    CheckBlockRoundTrip(
        block,
        [&](std::string_view b, std::string* out) {
          return state.codecs.lz4().Decompress(b, dict, out);
        },
        [&](std::string_view plain, std::string* out) {
          return state.codecs.lz4().Compress(plain, Lz4BlockOptions{hc, level, dict}, out);
        });
  }
  CheckLz4Probes(state);
  CheckPoolInvariants(state.pools);
  return 0;
}
