// zlib blocks in RocksDB's format (type 0x2): varint32 size | raw deflate,
// and the same pooled streams for zlib- and gzip-framed data (the way Go's
// pooled gzip.Writer serves many callers).
//
// The one home of how rockpool deflates and inflates a zlib block.
// Byte-identical to RocksDB (7.x-11.x) Zlib_Compress: deflateInit2(level,
// Z_DEFLATED, window_bits, memLevel 8, strategy), optional
// deflateSetDictionary, one deflate(Z_FINISH) into the output buffer
// (deflateBound bytes in RocksDB 7.x, the caller's buffer, which encodes the
// acceptable ratio, in RocksDB >= 10.4). RocksDB gives up on a block whose
// deflate output does not fit; so do we (FailedPrecondition), and callers
// store it uncompressed. The *Into calls write into a caller's buffer (the
// native face calls them); the string forms add the size prefix.
#ifndef ROCKPOOL_COMPRESSION_ZLIB_BLOCK_CODEC_H_
#define ROCKPOOL_COMPRESSION_ZLIB_BLOCK_CODEC_H_

#include <zlib.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "compression/block_format.h"
#include "compression/zlib_contexts.h"

namespace rockpool {

// RocksDB's CompressionOptions for zlib, with RocksDB's defaults.
struct ZlibBlockOptions {
  int level = kRocksDbDefaultLevel;  // -> Z_DEFAULT_COMPRESSION
  int window_bits = -14;             // any of -15..-9 (raw deflate)
  int strategy = Z_DEFAULT_STRATEGY;
  std::string_view dictionary;  // raw dictionary bytes, may be empty
};

// The deflate pool key for RocksDB options (memLevel is always 8 there).
DeflateKey DeflateKeyFor(const ZlibBlockOptions& options);

class ZlibBlockCodec {
 public:
  // Pools must outlive the codec.
  ZlibBlockCodec(DeflatePool* deflate_pool, InflatePool* inflate_pool, size_t max_uncompressed_size)
      : deflate_pool_(deflate_pool),
        inflate_pool_(inflate_pool),
        max_uncompressed_size_(max_uncompressed_size) {}

  // RocksDB block format. Replaces *out.
  absl::Status Compress(std::string_view input, const ZlibBlockOptions& options,
                        std::string* out) const;
  // Accepts blocks written with any raw window (inflates with -15).
  absl::Status Decompress(std::string_view block, std::string_view dictionary,
                          std::string* out) const;

  // zlib (window_bits 8..15) or gzip (25..31) framed streams.
  absl::Status CompressStream(std::string_view input, int level, int window_bits,
                              std::string* out) const;
  // Inflates one whole stream; output over `max_output` bytes is an error.
  // window_bits 8..15, 24..31, or 40..47 (detect zlib or gzip).
  absl::Status DecompressStream(std::string_view input, int window_bits, size_t max_output,
                                std::string* out) const;

  // On a deflate stream the caller holds, freshly initialised or reset with
  // the parameters of `options`.
  static absl::Status CompressWith(z_stream* stream, std::string_view input,
                                   std::string_view dictionary, std::string* out);
  // One whole zlib/gzip/raw stream (no size prefix) on a deflate stream the
  // caller holds, fresh or reset.
  static absl::Status CompressStreamWith(z_stream* stream, std::string_view input,
                                         std::string* out);
  // Inflates one whole stream on an inflate stream the caller holds.
  static absl::Status DecompressStreamWith(z_stream* stream, std::string_view input,
                                           size_t max_output, std::string* out);
  // On a raw inflate stream the caller holds, fresh or reset.
  static absl::Status DecompressWith(z_stream* stream, std::string_view block,
                                     std::string_view dictionary, size_t max_uncompressed_size,
                                     std::string* out);

  // ---- into a caller's buffer: the payload only, no size prefix

  // Sets `dictionary` (if any) on a fresh or reset deflate stream, then one
  // deflate(Z_FINISH) of `input` into dst[0, capacity): the payload size, or
  // FailedPrecondition when it does not fit.
  static absl::StatusOr<size_t> DeflateInto(z_stream* stream, std::string_view input,
                                            std::string_view dictionary, char* dst,
                                            size_t capacity);
  // Inflates a raw payload into exactly `size` bytes at `out` on a fresh or
  // reset raw inflate stream, with `dictionary` (if any) set first. Z_FINISH
  // with the whole output available: zlib inflates straight into it and
  // never allocates its window. DataLoss on a corrupt, short, long or
  // trailing-garbage payload.
  static absl::Status InflateInto(z_stream* stream, std::string_view payload,
                                  std::string_view dictionary, char* out, size_t size);

 private:
  DeflatePool* const deflate_pool_;
  InflatePool* const inflate_pool_;
  const size_t max_uncompressed_size_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZLIB_BLOCK_CODEC_H_
