// RocksDB's compressed block format, as plain bytes (no RocksDB headers).
//
// With compress_format_version 2 (every RocksDB since 4.x), a compressed
// block is:   varint32 uncompressed_size | codec payload
// followed on disk by a 5-byte trailer (type byte + checksum) that the SST
// layer handles. zlib payloads are raw deflate (window_bits -14 by default);
// zstd payloads are one zstd frame. The varint coder is coding.h's and the
// type byte's values are compression_type.h's: one home for each fact.
#ifndef ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_
#define ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace rockpool {

// RocksDB's CompressionOptions::kDefaultCompressionLevel: "the codec's
// default" (zstd: 3, zlib: Z_DEFAULT_COMPRESSION).
inline constexpr int kRocksDbDefaultLevel = 32767;

// A varint32 size prefix takes at most this many bytes.
inline constexpr size_t kMaxBlockPrefixSize = 5;

// Where a block's codec payload goes in a caller's buffer, after the prefix.
struct BlockPayloadArea {
  char* data;
  size_t capacity;
  size_t prefix_size;
};

// Writes the size prefix of a block of `uncompressed_size` bytes at `out`
// (a buffer of `capacity` bytes) and returns the payload area after it.
// nullopt, nothing written: the size is over 4 GiB, or the buffer has no
// room beyond the longest prefix (RocksDB's StartCompressBlockV2 then
// stores the block uncompressed).
std::optional<BlockPayloadArea> StartBlock(size_t uncompressed_size, char* out, size_t capacity);

struct BlockPrefix {
  uint32_t uncompressed_size;
  std::string_view payload;  // the codec's bytes, after the size prefix
};

// Splits a compressed block into its size prefix and payload. Rejects sizes
// over `max_uncompressed_size` before anything is allocated.
absl::StatusOr<BlockPrefix> ParseBlockPrefix(std::string_view block, size_t max_uncompressed_size);

// The string form of a block compression, for codecs whose worst case is
// known before they run (zstd, LZ4; zlib's bound depends on its stream):
// sizes *out for the longest prefix plus `bound`, writes the prefix, then
// compress_into(char* payload, size_t capacity) -> absl::StatusOr<size_t>
// writes at most `bound` bytes after it; *out is the block, or empty after
// any failure (errors begin with `codec`, e.g. "zstd").
template <typename CompressInto>
absl::Status CompressBlockToString(const char* codec, size_t input_size, size_t bound,
                                   std::string* out, CompressInto compress_into) {
  out->resize(kMaxBlockPrefixSize + bound);
  const std::optional<BlockPayloadArea> area = StartBlock(input_size, out->data(), out->size());
  if (!area.has_value()) {
    out->clear();
    return absl::InvalidArgumentError(absl::StrCat(codec, ": block over 4 GiB"));
  }
  absl::StatusOr<size_t> n = compress_into(area->data, bound);
  if (!n.ok()) {
    out->clear();
    return n.status();
  }
  out->resize(area->prefix_size + *n);
  return absl::OkStatus();
}

// The string form of a block decompression, for every codec: parses the
// prefix (errors begin with `codec`, e.g. "zstd block"), sizes *out, then
// decompress_into(payload, char* out, size_t size) -> absl::Status fills it;
// *out is empty after any failure.
template <typename DecompressInto>
absl::Status DecompressBlockToString(const char* codec, std::string_view block,
                                     size_t max_uncompressed_size, std::string* out,
                                     DecompressInto decompress_into) {
  absl::StatusOr<BlockPrefix> prefix = ParseBlockPrefix(block, max_uncompressed_size);
  if (!prefix.ok()) {
    out->clear();
    return absl::Status(prefix.status().code(),
                        absl::StrCat(codec, ": ", prefix.status().message()));
  }
  out->resize(prefix->uncompressed_size);
  absl::Status s = decompress_into(prefix->payload, out->data(), out->size());
  if (!s.ok()) out->clear();
  return s;
}

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_
