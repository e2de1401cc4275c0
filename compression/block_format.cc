#include "compression/block_format.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compression/coding.h"

namespace rockpool {

std::optional<BlockPayloadArea> StartBlock(size_t uncompressed_size, char* out, size_t capacity) {
  if (uncompressed_size > std::numeric_limits<uint32_t>::max() || capacity <= kMaxBlockPrefixSize) {
    return std::nullopt;
  }
  char* payload = EncodeVarint32(out, static_cast<uint32_t>(uncompressed_size));
  const size_t prefix = static_cast<size_t>(payload - out);
  return BlockPayloadArea{payload, capacity - prefix, prefix};
}

absl::StatusOr<BlockPrefix> ParseBlockPrefix(std::string_view block, size_t max_uncompressed_size) {
  std::string_view rest = block;
  uint32_t size = 0;
  if (!GetVarint32(&rest, &size)) {
    const bool truncated = block.size() < 5 && std::all_of(block.begin(), block.end(),
                                                           [](char c) { return (c & 0x80) != 0; });
    return absl::DataLossError(truncated
                                   ? "truncated varint32 size prefix"
                                   : "varint32 size prefix longer than 5 bytes or over 32 bits");
  }
  if (size > max_uncompressed_size) {
    return absl::OutOfRangeError(absl::StrCat(
        "block declares ", size, " uncompressed bytes, over the limit of ", max_uncompressed_size));
  }
  return BlockPrefix{size, rest};
}

}  // namespace rockpool
