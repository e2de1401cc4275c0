// RocksDB's CompressionType: the type byte of a block trailer (and of a blob
// file header), as plain constants. The one spelling in rockpool; not to be
// confused with RocksDB's BlockType (data, index, filter, ... blocks).
#ifndef ROCKPOOL_COMPRESSION_COMPRESSION_TYPE_H_
#define ROCKPOOL_COMPRESSION_COMPRESSION_TYPE_H_

#include <cstdint>
#include <string_view>

namespace rockpool {

namespace compression_type {
inline constexpr uint8_t kNone = 0x0;
inline constexpr uint8_t kSnappy = 0x1;
inline constexpr uint8_t kZlib = 0x2;
inline constexpr uint8_t kBZip2 = 0x3;
inline constexpr uint8_t kLZ4 = 0x4;
inline constexpr uint8_t kLZ4HC = 0x5;
inline constexpr uint8_t kXpress = 0x6;
inline constexpr uint8_t kZSTD = 0x7;
}  // namespace compression_type

// "none", "snappy", "zlib", ... or "custom" for other values.
std::string_view CompressionTypeName(uint8_t type);

// True for the types whose compress_format_version 2 payload starts with the
// varint32 uncompressed size (zlib, bzip2, lz4, lz4hc, zstd).
bool HasUncompressedSizePrefix(uint8_t type);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COMPRESSION_TYPE_H_
