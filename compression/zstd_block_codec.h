// zstd blocks in RocksDB's format (type 0x7): varint32 size | zstd frame.
//
// Byte-identical to RocksDB (7.x-11.x, compress_format_version 2):
//   no dictionary:   ZSTD_compress_usingDict(cctx, ..., nullptr, 0, level)
//   with dictionary: ZSTD_compress_usingCDict(cctx, ..., cdict)
// into a buffer of ZSTD_compressBound(n) bytes.
//
// The *With functions run on a context the caller holds (RocksDB holds one
// zstd context per SST file being built); the others lease one per call.
#ifndef ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_
#define ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "compression/zstd_contexts.h"
#include "compression/zstd_dictionary.h"

namespace rockpool {

class ZstdBlockCodec {
 public:
  // Pools must outlive the codec.
  ZstdBlockCodec(ZstdCompressPool* compress_pool, ZstdDecompressPool* decompress_pool,
                 size_t max_uncompressed_size)
      : compress_pool_(compress_pool),
        decompress_pool_(decompress_pool),
        max_uncompressed_size_(max_uncompressed_size) {}

  // `level` follows RocksDB 7.8.3 (zstd_level.h, kV7). With `dict`, its
  // own level applies, as in RocksDB. Replaces *out.
  absl::Status Compress(std::string_view input, int level, const ZstdDictionary* dict,
                        std::string* out) const;
  absl::Status Decompress(std::string_view block, const ZstdDictionary* dict,
                          std::string* out) const;

  static absl::Status CompressWith(ZSTD_CCtx_s* cctx, std::string_view input, int level,
                                   const ZstdDictionary* dict, std::string* out);
  static absl::Status DecompressWith(ZSTD_DCtx_s* dctx, std::string_view block,
                                     const ZstdDictionary* dict, size_t max_uncompressed_size,
                                     std::string* out);

 private:
  ZstdCompressPool* const compress_pool_;
  ZstdDecompressPool* const decompress_pool_;
  const size_t max_uncompressed_size_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_
