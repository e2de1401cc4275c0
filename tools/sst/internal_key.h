// Internal keys, as stored in data blocks: user key + fixed64 footer
// (sequence number << 8 | value type).
#ifndef ROCKPOOL_TOOLS_SST_INTERNAL_KEY_H_
#define ROCKPOOL_TOOLS_SST_INTERNAL_KEY_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "compression/coding.h"

namespace rockpool::sst {

inline constexpr size_t kInternalKeyFooterSize = 8;

struct ParsedInternalKey {
  std::string_view user_key;
  uint64_t sequence = 0;
  uint8_t type = 0;  // 1 = kTypeValue, 0 = kTypeDeletion, ...
};

// nullopt if `key` is shorter than the 8-byte footer.
inline std::optional<ParsedInternalKey> ParseInternalKey(std::string_view key) {
  if (key.size() < kInternalKeyFooterSize) return std::nullopt;
  const size_t n = key.size() - kInternalKeyFooterSize;
  const uint64_t packed = DecodeFixed64(key.data() + n);
  return ParsedInternalKey{key.substr(0, n), packed >> 8, static_cast<uint8_t>(packed & 0xff)};
}

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_INTERNAL_KEY_H_
