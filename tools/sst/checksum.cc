#include "tools/sst/checksum.h"

#include <xxhash.h>

#include "tools/sst/crc32c.h"

namespace rockpool::sst {
namespace {

// table/format.cc ModifyChecksumForLastByte.
uint32_t ModifyChecksumForLastByte(uint32_t checksum, char last_byte) {
  constexpr uint32_t kRandomPrime = 0x6b9083d9u;
  return checksum ^ static_cast<uint32_t>(static_cast<uint8_t>(last_byte)) * kRandomPrime;
}

}  // namespace

bool IsKnownChecksumType(uint32_t raw) { return raw <= static_cast<uint32_t>(ChecksumType::kXXH3); }

std::string_view ChecksumTypeName(ChecksumType type) {
  switch (type) {
    case ChecksumType::kNoChecksum:
      return "none";
    case ChecksumType::kCRC32c:
      return "crc32c";
    case ChecksumType::kxxHash:
      return "xxhash";
    case ChecksumType::kxxHash64:
      return "xxhash64";
    case ChecksumType::kXXH3:
      return "xxh3";
  }
  return "unknown";
}

uint32_t ComputeBuiltinChecksum(ChecksumType type, const char* data, size_t n) {
  switch (type) {
    case ChecksumType::kCRC32c:
      return crc32c::Mask(crc32c::Value(data, n));
    case ChecksumType::kxxHash:
      return XXH32(data, n, 0);
    case ChecksumType::kxxHash64:
      return static_cast<uint32_t>(XXH64(data, n, 0));
    case ChecksumType::kXXH3:
      if (n == 0) return 0;
      return ModifyChecksumForLastByte(static_cast<uint32_t>(XXH3_64bits(data, n - 1)),
                                       data[n - 1]);
    case ChecksumType::kNoChecksum:
      break;
  }
  return 0;
}

uint32_t ComputeBlockChecksum(ChecksumType type, std::string_view payload_and_type,
                              uint32_t base_context_checksum, uint64_t offset) {
  return ComputeBuiltinChecksum(type, payload_and_type.data(), payload_and_type.size()) +
         ChecksumModifierForContext(base_context_checksum, offset);
}

}  // namespace rockpool::sst
