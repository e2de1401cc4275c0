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
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rockpool {

// RocksDB's CompressionOptions::kDefaultCompressionLevel: "the codec's
// default" (zstd: 3, zlib: Z_DEFAULT_COMPRESSION).
inline constexpr int kRocksDbDefaultLevel = 32767;

struct BlockPrefix {
  uint32_t uncompressed_size;
  std::string_view payload;  // the codec's bytes, after the size prefix
};

// Splits a compressed block into its size prefix and payload. Rejects sizes
// over `max_uncompressed_size` before anything is allocated.
absl::StatusOr<BlockPrefix> ParseBlockPrefix(std::string_view block, size_t max_uncompressed_size);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_
