// How RocksDB turns CompressionOptions::level into the level it hands zstd:
// one function, parameterized by the RocksDB generation, so that each face
// keeps its RocksDB's output byte for byte.
//
//   RocksDB 7.8.3 (util/compression.h, ZSTD_Compress): kRocksDbDefaultLevel
//     becomes 3 (ZSTD_CLEVEL_DEFAULT); every other level, 0 included, goes to
//     zstd unchanged (zstd itself reads 0 as its default, 3).
//   RocksDB >= 10.4 (BuiltinZSTDCompressorV2): kRocksDbDefaultLevel becomes
//     3 as well, but 0 becomes -1, avoiding the library's discontinuity at 0.
#ifndef ROCKPOOL_COMPRESSION_ZSTD_LEVEL_H_
#define ROCKPOOL_COMPRESSION_ZSTD_LEVEL_H_

#include "compression/block_format.h"

namespace rockpool {

enum class RocksDbZstdLevels {
  kV7,   // RocksDB 7.x (Debian's 7.8.3): the legacy face, sst_replay
  kV10,  // RocksDB >= 10.4: the native face
};

constexpr int ZstdLevelFromRocksDb(int level, RocksDbZstdLevels rules) {
  if (level == kRocksDbDefaultLevel) return 3;  // ZSTD_CLEVEL_DEFAULT
  if (level == 0 && rules == RocksDbZstdLevels::kV10) return -1;
  return level;
}

static_assert(ZstdLevelFromRocksDb(kRocksDbDefaultLevel, RocksDbZstdLevels::kV7) == 3);
static_assert(ZstdLevelFromRocksDb(0, RocksDbZstdLevels::kV7) == 0);
static_assert(ZstdLevelFromRocksDb(0, RocksDbZstdLevels::kV10) == -1);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZSTD_LEVEL_H_
