// Fuzz target: zlib- and gzip-framed streams through the pooled
// ZlibBlockCodec::DecompressStream: with auto-detection (window_bits 47) and
// with one explicit window and output limit chosen from the input's length,
// so every framing, window size and limit (including "no limit") is reached;
// and the output limit checked to be exact.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "tests/fuzz/codec_fuzz_support.h"

using namespace rockpool;        // NOLINT
using namespace rockpool::fuzz;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CodecFuzzState& state = State();
  const std::string_view input = AsView(data, size);
  static constexpr int kWindows[] = {15, 31, 9, 25, 12, 28, 8, 24, 40, 47, 14, 30, 13, 29, 10, 26};
  static constexpr size_t kLimits[] = {kMaxUncompressedSize, 0, 1, 4096,
                                       std::numeric_limits<size_t>::max()};
  struct Run {
    int window_bits;
    size_t max_output;
  };
  // libFuzzer inputs are at most a few hundred KiB: even "no limit" stays
  // within deflate's 1032:1 ratio of that.
  const Run runs[] = {{47, kMaxUncompressedSize}, {kWindows[size % 16], kLimits[(size / 16) % 5]}};
  // The output limit is exact, and "no limit" (SIZE_MAX) is no limit: once
  // a stream decodes within the default limit, it decodes the same with a
  // limit of exactly its size or none, and fails OutOfRange one byte below.
  {
    std::string out;
    if (state.codecs.zlib().DecompressStream(input, 47, kMaxUncompressedSize, &out).ok()) {
      std::string again;
      absl::Status s = state.codecs.zlib().DecompressStream(
          input, 47, std::numeric_limits<size_t>::max(), &again);
      FUZZ_CHECK_MSG(s.ok() && again == out, "no limit: " + s.ToString());
      s = state.codecs.zlib().DecompressStream(input, 47, out.size(), &again);
      FUZZ_CHECK_MSG(s.ok() && again == out, "exact limit: " + s.ToString());
      if (!out.empty()) {
        s = state.codecs.zlib().DecompressStream(input, 47, out.size() - 1, &again);
        FUZZ_CHECK_MSG(s.code() == absl::StatusCode::kOutOfRange, "limit - 1: " + s.ToString());
      }
    }
  }
  for (const Run& run : runs) {
    std::string out;
    const absl::Status s =
        state.codecs.zlib().DecompressStream(input, run.window_bits, run.max_output, &out);
    if (!s.ok()) {
      FUZZ_CHECK_MSG(IsInputError(s),
                     s.ToString() + " window_bits " + std::to_string(run.window_bits));
      continue;
    }
    FUZZ_CHECK(out.size() <= run.max_output);
    if (out.size() <= kMaxRoundTripSize) {
      for (int wb : {15, 31}) {
        std::string again, back;
        FUZZ_CHECK(state.codecs.zlib().CompressStream(out, 1, wb, &again).ok());
        FUZZ_CHECK(state.codecs.zlib().DecompressStream(again, 47, out.size(), &back).ok());
        FUZZ_CHECK(back == out);
      }
    }
  }
  CheckStreamProbe(state);
  CheckPoolInvariants(state.pools);
  return 0;
}
