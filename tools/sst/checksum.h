// Block and footer checksums of block-based tables, bit-exact with RocksDB
// (table/format.cc ComputeBuiltinChecksum, format.h ChecksumModifierForContext).
//
// A block's checksum covers the block payload plus the compression type byte
// of its trailer. From format_version 6 on, the stored value also has
// ChecksumModifierForContext(base_context_checksum, block_offset) added, so a
// block copied to another offset (or file) fails verification.
#ifndef ROCKPOOL_TOOLS_SST_CHECKSUM_H_
#define ROCKPOOL_TOOLS_SST_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rockpool::sst {

enum class ChecksumType : uint8_t {
  kNoChecksum = 0,
  kCRC32c = 1,    // masked crc32c
  kxxHash = 2,    // XXH32, seed 0
  kxxHash64 = 3,  // lower 32 bits of XXH64, seed 0
  kXXH3 = 4,      // lower 32 bits of XXH3_64bits(all but last byte), mixed
                  // with the last byte
};

bool IsKnownChecksumType(uint32_t raw);
// "crc32c", "xxhash", ...; "unknown" for values outside the enum.
std::string_view ChecksumTypeName(ChecksumType type);

// RocksDB's ComputeBuiltinChecksum over data[0, n). kNoChecksum yields 0.
uint32_t ComputeBuiltinChecksum(ChecksumType type, const char* data, size_t n);

// Zero when base_context_checksum == 0 (format_version < 6).
inline uint32_t ChecksumModifierForContext(uint32_t base_context_checksum, uint64_t offset) {
  const uint32_t all_or_nothing = uint32_t{0} - (base_context_checksum != 0);
  const uint32_t modifier =
      base_context_checksum ^ (static_cast<uint32_t>(offset) + static_cast<uint32_t>(offset >> 32));
  return modifier & all_or_nothing;
}

// The value a writer stores in the trailer of a block at `offset`:
// `payload_and_type` is the payload followed by the compression type byte.
uint32_t ComputeBlockChecksum(ChecksumType type, std::string_view payload_and_type,
                              uint32_t base_context_checksum, uint64_t offset);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_CHECKSUM_H_
