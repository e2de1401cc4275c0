// Shared state and checks for the codec fuzz targets.
//
// The pools live across inputs, exactly as in a database: every input is
// decoded on a context that earlier (often hostile) inputs used, so a
// context left dirty by a failed decode shows up as a wrong result on the
// probe block decoded after each input.
#ifndef ROCKPOOL_TESTS_FUZZ_CODEC_FUZZ_SUPPORT_H_
#define ROCKPOOL_TESTS_FUZZ_CODEC_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "tests/fuzz/fuzz_check.h"

namespace rockpool::fuzz {

// Declared sizes over this are rejected by the codecs (OutOfRange), so a
// tiny input cannot make the target allocate gigabytes.
inline constexpr size_t kMaxUncompressedSize = size_t{4} << 20;
// Round trips (re-compress what decoded, decode again) up to this size.
inline constexpr size_t kMaxRoundTripSize = size_t{256} << 10;

// The dictionary the seed generator uses for "with dictionary" seeds.
std::string SeedDictionary();

struct CodecFuzzState {
  CodecFuzzState();
  CompressionPools pools;
  BlockCodecs codecs;
  std::shared_ptr<const ZstdDictionary> dictionary;  // SeedDictionary()
  std::string probe;                                 // a known input, and its blocks / streams:
  std::string probe_zstd, probe_zstd_dict, probe_zlib, probe_zlib_dict, probe_gzip;
  std::string probe_lz4, probe_lz4_dict, probe_lz4hc_dict;  // made on new streams
};

// Built on first use; never destroyed (reachable, so not a leak).
CodecFuzzState& State();

// Hostile input may only fail as corrupt (DataLoss), over a limit
// (OutOfRange) or out of memory (ResourceExhausted). InvalidArgument,
// Internal and others mean rockpool misjudged valid parameters: a bug.
inline bool IsInputError(const absl::Status& s) {
  return s.code() == absl::StatusCode::kDataLoss || s.code() == absl::StatusCode::kOutOfRange ||
         s.code() == absl::StatusCode::kResourceExhausted;
}

// The pools' books balance whenever no lease is out.
void CheckPoolInvariants(const CompressionPools& pools);

// The reused contexts still decode the probe blocks exactly.
void CheckZstdProbes(CodecFuzzState& state);
void CheckZlibProbes(CodecFuzzState& state);
// ... and the pooled LZ4 streams still compress the probe to exactly the
// bytes a new stream made (a pooled stream must be as new).
void CheckLz4Probes(CodecFuzzState& state);
void CheckStreamProbe(CodecFuzzState& state);

// What every block target checks for one input and one dictionary: the
// block either decodes to the size its prefix says or fails as an input
// error, and a decoded block up to kMaxRoundTripSize round-trips through
// compress(plain, &block) and decode(block, &plain) on the pooled contexts.
template <typename Decode, typename Compress>
void CheckBlockRoundTrip(std::string_view block, Decode decode, Compress compress) {
  std::string out;
  const absl::Status s = decode(block, &out);
  if (!s.ok()) {
    FUZZ_CHECK_MSG(IsInputError(s), s.ToString());
    return;
  }
  absl::StatusOr<BlockPrefix> prefix = ParseBlockPrefix(block, kMaxUncompressedSize);
  FUZZ_CHECK(prefix.ok() && prefix->uncompressed_size == out.size());
  if (out.size() > kMaxRoundTripSize) return;
  std::string again, back;
  FUZZ_CHECK(compress(out, &again).ok());
  FUZZ_CHECK(decode(again, &back).ok());
  FUZZ_CHECK(back == out);
}

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace rockpool::fuzz

#endif  // ROCKPOOL_TESTS_FUZZ_CODEC_FUZZ_SUPPORT_H_
