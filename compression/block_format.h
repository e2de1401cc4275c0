// RocksDB's compressed block format, as plain bytes (no RocksDB headers).
//
// With compress_format_version 2 (every RocksDB since 4.x), a compressed
// block is:   varint32 uncompressed_size | codec payload
// followed on disk by a 5-byte trailer (type byte + checksum) that the SST
// layer handles. zlib payloads are raw deflate (window_bits -14 by default);
// zstd payloads are one zstd frame.
#ifndef ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_
#define ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rockpool {

// RocksDB's CompressionType values (the block trailer's type byte).
enum class BlockType : uint8_t {
  kNone = 0x0,
  kSnappy = 0x1,
  kZlib = 0x2,
  kBZip2 = 0x3,
  kLZ4 = 0x4,
  kLZ4HC = 0x5,
  kXpress = 0x6,
  kZstd = 0x7,
};

// "Snappy", "ZSTD", ... ; "Unknown(0x..)" for others.
std::string BlockTypeName(uint8_t type);

// RocksDB's CompressionOptions::kDefaultCompressionLevel: "the codec's
// default" (zstd: 3, zlib: Z_DEFAULT_COMPRESSION).
inline constexpr int kRocksDbDefaultLevel = 32767;

// Appends the varint32 encoding of `value`. Returns bytes written (1..5).
size_t PutVarint32(std::string* dst, uint32_t value);

// Decodes a varint32 at the start of `input`; on success advances `input`.
// Fails on truncation or on more than 5 bytes / overflow.
absl::StatusOr<uint32_t> GetVarint32(std::string_view* input);

struct BlockPrefix {
  uint32_t uncompressed_size;
  std::string_view payload;  // the codec's bytes, after the size prefix
};

// Splits a compressed block into its size prefix and payload. Rejects sizes
// over `max_uncompressed_size` before anything is allocated.
absl::StatusOr<BlockPrefix> ParseBlockPrefix(std::string_view block, size_t max_uncompressed_size);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_BLOCK_FORMAT_H_
