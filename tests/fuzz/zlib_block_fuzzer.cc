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
    std::string out;
    const absl::Status s = state.codecs.zlib().Decompress(block, dict, &out);
    if (!s.ok()) {
      FUZZ_CHECK_MSG(IsInputError(s), s.ToString());
      continue;
    }
    absl::StatusOr<BlockPrefix> prefix = ParseBlockPrefix(block, kMaxUncompressedSize);
    FUZZ_CHECK(prefix.ok() && prefix->uncompressed_size == out.size());
    if (out.size() <= kMaxRoundTripSize) {
      ZlibBlockOptions options;
      options.level = 1;
      options.dictionary = dict;
      std::string again, back;
      FUZZ_CHECK(state.codecs.zlib().Compress(out, options, &again).ok());
      FUZZ_CHECK(state.codecs.zlib().Decompress(again, dict, &back).ok());
      FUZZ_CHECK(back == out);
    }
  }
  CheckZlibProbes(state);
  CheckPoolInvariants(state.pools);
  return 0;
}
