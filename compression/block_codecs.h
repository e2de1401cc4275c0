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

// How one block is compressed: RocksDB's CompressionOptions for it (each
// codec reads its own fields) and the context the caller holds for it, if
// any. RocksDB's table builder holds a zstd context per SST file (10.7+:
// LZ4 working areas too); without one held, a context is leased for the
// call, as RocksDB creates one per block for zlib (and LZ4 up to 10.5).
struct BlockCompression {
  uint8_t type = 0;                   // RocksDB's CompressionType byte
  int level = kRocksDbDefaultLevel;   // RocksDB's level (zstd_level.h, kV7)
  int window_bits = -14;              // zlib
  int strategy = Z_DEFAULT_STRATEGY;  // zlib
  const ZstdDictionary* zstd_dictionary = nullptr;
  std::string_view raw_dictionary;  // zlib and LZ4
  // Held contexts: the one of `type` is used, the others ignored.
  ZSTD_CCtx_s* zstd_cctx = nullptr;
  LZ4_stream_t* lz4_stream = nullptr;
  LZ4_streamHC_t* lz4hc_stream = nullptr;
  // LZ4 with no stream held: RocksDB 10.7+'s LZ4_compress_fast without one
  // (lz4_block_codec.h) instead of a leased stream.
  bool lz4_without_stream = false;
};

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

  // Compresses `input` into a block of RocksDB type `how.type` (RocksDB's
  // format, size prefix included). Errors as the codec's own (the output
  // not fitting is FailedPrecondition: RocksDB stores the block raw);
  // kNone and other codecs: Unimplemented, naming the codec.
  absl::Status Compress(std::string_view input, const BlockCompression& how,
                        std::string* out) const;

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
