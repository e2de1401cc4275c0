// zstd blocks in RocksDB's format (type 0x7): varint32 size | zstd frame.
// The one home of how rockpool compresses and decompresses a zstd block,
// for both call sequences RocksDB uses (byte-identical to each):
//
//   RocksDB 7.x-9.x (and the legacy face's routed calls):
//     no dictionary:   ZSTD_compress_usingDict(cctx, ..., nullptr, 0, level)
//     with dictionary: ZSTD_compress_usingCDict(cctx, ..., cdict)
//   RocksDB >= 10.4 (BuiltinZSTDCompressorV2, the native face): level and
//     checksum flag sticky on the context (PrepareForCompress2), the
//     dictionary referenced per block (ZSTD_CCtx_refCDict, or the raw bytes
//     loaded), then ZSTD_compress2.
//
// The *Into calls write into a caller's buffer and are what the native face
// calls; the string forms (used by the replay tool, the SST reader and the
// tests) write the size prefix (block_format.h) and call them. Compress
// results: OK with the payload size; FailedPrecondition when the output
// does not fit the buffer (RocksDB then stores the block uncompressed);
// ResourceExhausted when zstd runs out of memory; Internal otherwise.
//
// The *With functions run on a context the caller holds (RocksDB holds one
// zstd context per SST file being built); Compress/Decompress lease one.
#ifndef ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_
#define ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

  // ---- into a caller's buffer: the payload only, no size prefix

  // RocksDB 7.x's sequence; `zstd_level` is the level zstd sees. `cdict`
  // may be null (no dictionary).
  static absl::StatusOr<size_t> CompressUsingDictInto(ZSTD_CCtx_s* cctx, std::string_view input,
                                                      int zstd_level, const ZSTD_CDict_s* cdict,
                                                      char* dst, size_t capacity);

  // RocksDB >= 10.4's sequence. PrepareForCompress2 sets the sticky
  // parameters once per context (a working area); Compress2Into then
  // references `cdict` if not null, else loads `raw_dictionary` (empty: no
  // dictionary), and compresses.
  static absl::Status PrepareForCompress2(ZSTD_CCtx_s* cctx, int zstd_level, bool checksum);
  static absl::StatusOr<size_t> Compress2Into(ZSTD_CCtx_s* cctx, std::string_view input,
                                              const ZSTD_CDict_s* cdict,
                                              std::string_view raw_dictionary, char* dst,
                                              size_t capacity);

  // Decompresses one frame into exactly `size` bytes at `out` (`ddict` may
  // be null). DataLoss when the frame is corrupt or its size is not `size`.
  static absl::Status DecompressInto(ZSTD_DCtx_s* dctx, std::string_view payload,
                                     const ZSTD_DDict_s* ddict, char* out, size_t size);

 private:
  ZstdCompressPool* const compress_pool_;
  ZstdDecompressPool* const decompress_pool_;
  const size_t max_uncompressed_size_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZSTD_BLOCK_CODEC_H_
