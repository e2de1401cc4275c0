// BlockCodecs: RocksDB-format block compression over a CompressionPools,
// dispatching on the block trailer's type byte. This is what format-level
// code (the SST reader's decompression hook, the replay tool) uses.
#ifndef ROCKPOOL_COMPRESSION_BLOCK_CODECS_H_
#define ROCKPOOL_COMPRESSION_BLOCK_CODECS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "compression/compression_pools.h"
#include "compression/lz4_block_codec.h"
#include "compression/zlib_block_codec.h"
#include "compression/zstd_block_codec.h"
#include "compression/zstd_dictionary.h"

namespace rockpool {

// Blocks declaring more uncompressed bytes than this are rejected unless the
// caller picks another limit. RocksDB blocks are KiBs to a few MiB.
inline constexpr size_t kDefaultMaxUncompressedSize = size_t{256} << 20;

// A buffer no zstd or zlib block of `uncompressed_size` bytes can overflow:
// the longest size prefix plus the larger of ZSTD_compressBound and
// deflate's bound for any parameters (zlib's deflateBound worst case: stored
// blocks plus the largest wrapper).
size_t MaxCompressedBlockSize(size_t uncompressed_size);

class BlockCodecs {
 public:
  // `pools` must outlive this object.
  explicit BlockCodecs(CompressionPools* pools,
                       size_t max_uncompressed_size = kDefaultMaxUncompressedSize)
      : pools_(pools),
        zstd_(&pools->zstd_compress(), &pools->zstd_decompress(), max_uncompressed_size),
        zlib_(&pools->deflate(), &pools->inflate(), max_uncompressed_size),
        lz4_(&pools->lz4(), &pools->lz4hc(), max_uncompressed_size) {}

  const ZstdBlockCodec& zstd() const { return zstd_; }
  const ZlibBlockCodec& zlib() const { return zlib_; }
  const Lz4BlockCodec& lz4() const { return lz4_; }
  CompressionPools* pools() const { return pools_; }

  // Decompresses a block of RocksDB type `type` (payload without trailer).
  // kNone copies. `dict` may be null; for zlib and LZ4 blocks its raw()
  // bytes are the dictionary. Other codecs: Unimplemented, naming the codec.
  absl::Status Decompress(uint8_t type, std::string_view payload, const ZstdDictionary* dict,
                          std::string* out) const;

 private:
  CompressionPools* const pools_;
  const ZstdBlockCodec zstd_;
  const ZlibBlockCodec zlib_;
  const Lz4BlockCodec lz4_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_BLOCK_CODECS_H_
