#include "tools/sst/block_layout.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compression/coding.h"

namespace rockpool::sst {
namespace {

constexpr size_t kMaxBlockSizeForHashIndex = 1u << 16;

}  // namespace

uint32_t BlockLayout::RestartPoint(std::string_view block, uint32_t i) const {
  return DecodeFixed32(block.data() + restarts_offset + 4 * size_t{i});
}

absl::StatusOr<BlockLayout> ParseBlockLayout(std::string_view block) {
  if (block.size() < 4) {
    return absl::DataLossError(
        absl::StrCat("block too small (", block.size(), " bytes) for a footer"));
  }
  size_t rest = block.size() - 4;
  uint32_t packed = DecodeFixed32(block.data() + rest);
  BlockLayout layout;
  if (packed & kReservedBit) {
    return absl::UnimplementedError(absl::StrCat("unsupported: block footer 0x", absl::Hex(packed),
                                                 " sets a reserved feature bit"));
  }
  layout.has_hash_index = (packed & kHashIndexBit) != 0;
  layout.uniform_keys = (packed & kUniformKeysBit) != 0;
  layout.separated_kv = (packed & kSeparatedKVBit) != 0;
  layout.num_restarts = packed & ~(kHashIndexBit | kUniformKeysBit | kSeparatedKVBit);
  if (layout.separated_kv) {
    if (rest < 4) return absl::DataLossError("block too small for values offset");
    rest -= 4;
    layout.values_offset = DecodeFixed32(block.data() + rest);
  }
  if (layout.has_hash_index) {
    if (rest < 2 || rest >= kMaxBlockSizeForHashIndex) {
      return absl::DataLossError("bad data block hash index size");
    }
    const uint16_t num_buckets = DecodeFixed16(block.data() + rest - 2);
    if (num_buckets == 0 || size_t{num_buckets} + 2 > rest) {
      return absl::DataLossError(
          absl::StrCat("bad data block hash index (", num_buckets, " buckets)"));
    }
    rest -= size_t{num_buckets} + 2;
  }
  const uint64_t restart_bytes = uint64_t{layout.num_restarts} * 4;
  if (restart_bytes > rest) {
    return absl::DataLossError(absl::StrCat("block of ", block.size(), " bytes cannot hold ",
                                            layout.num_restarts, " restart points"));
  }
  layout.restarts_offset = rest - static_cast<size_t>(restart_bytes);
  layout.entries_end = layout.restarts_offset;
  if (layout.separated_kv) {
    if (layout.values_offset > layout.restarts_offset) {
      return absl::DataLossError("values section starts past the restart array");
    }
    layout.entries_end = layout.values_offset;
  }
  return layout;
}

}  // namespace rockpool::sst
