// Layout of an uncompressed block (block_builder.cc, data_block_footer.cc):
//
//   entries | [values section] | restarts (fixed32 x N) | [hash index] |
//   [values_section_offset fixed32] | packed footer fixed32
//
// Packed footer: bit 31 = data block hash index (kDataBlockBinaryAndHash),
// bit 30 reserved, bit 29 = uniform keys (11.x, informational), bit 28 =
// separated key/value storage (11.x), low 28 bits = number of restarts.
// Hash index: num_buckets bytes of bucket data, then num_buckets (fixed16).
#ifndef ROCKPOOL_TOOLS_SST_BLOCK_LAYOUT_H_
#define ROCKPOOL_TOOLS_SST_BLOCK_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace rockpool::sst {

// Packed footer bits (above); the low 28 bits count restarts.
inline constexpr uint32_t kHashIndexBit = 1u << 31;
inline constexpr uint32_t kReservedBit = 1u << 30;
inline constexpr uint32_t kUniformKeysBit = 1u << 29;
inline constexpr uint32_t kSeparatedKVBit = 1u << 28;

struct BlockLayout {
  uint32_t num_restarts = 0;
  size_t restarts_offset = 0;  // first byte of the restart array
  size_t entries_end = 0;      // end of the entry region
  bool has_hash_index = false;
  bool uniform_keys = false;
  bool separated_kv = false;
  size_t values_offset = 0;  // separated_kv only: values section start

  // Offset stored in restart slot i (< num_restarts); not validated.
  uint32_t RestartPoint(std::string_view block, uint32_t i) const;
};

// Parses the trailer-free, uncompressed `block`. Errors carry no file
// context (callers add it): DataLoss for malformed blocks, Unimplemented for
// reserved footer bits.
absl::StatusOr<BlockLayout> ParseBlockLayout(std::string_view block);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_BLOCK_LAYOUT_H_
