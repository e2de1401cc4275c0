// LZ4 and LZ4HC blocks in RocksDB's format (types 0x4 and 0x5): varint32
// size | one LZ4 block, compressed on a pooled stream.
//
// The one home of how rockpool compresses and decompresses an LZ4 block.
// Byte-identical to RocksDB's per-block streams (7.x through 10.5, and
// LZ4HC and LZ4 with a dictionary in later releases, format_version 2):
//   LZ4:   a new stream, LZ4_loadDict if there is a dictionary, then
//          LZ4_compress_fast_continue with acceleration 1 (7.x ignores the
//          level for LZ4; 10.6+ turns a negative level into an
//          acceleration, which this codec does not);
//   LZ4HC: a new stream, LZ4_resetStreamHC(level) (RocksDB's default level
//          becomes 0, which lz4hc reads as its default 9), LZ4_loadDictHC if
//          there is a dictionary, then LZ4_compress_HC_continue.
// A pooled stream is as new (lz4_contexts.h), so the HC level is set with
// LZ4_resetStreamHC_fast: on a clean stream it leaves exactly the state
// LZ4_resetStreamHC does, without clearing 256 KiB again.
// Decoding: LZ4_decompress_safe_usingDict, which is what RocksDB's
// LZ4_setStreamDecode + LZ4_decompress_safe_continue do for one block, and
// the output must be exactly the size prefix's bytes.
// RocksDB 10.7+'s LZ4 without a dictionary calls LZ4_compress_fast, with no
// stream, whose bytes differ from a stream's: CompressWithoutStreamInto,
// for the replay tool (tools/sst_replay/lz4_replay.h); there is nothing to
// pool there, and the native face keeps the built-in compressor.
// An output that does not fit the caller's buffer is FailedPrecondition
// (RocksDB then stores the block uncompressed); the string forms size it
// with LZ4_compressBound, as RocksDB 7.x does, so it always fits.
#ifndef ROCKPOOL_COMPRESSION_LZ4_BLOCK_CODEC_H_
#define ROCKPOOL_COMPRESSION_LZ4_BLOCK_CODEC_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/block_format.h"
#include "compression/lz4_contexts.h"

namespace rockpool {

// RocksDB's CompressionOptions for LZ4 and LZ4HC, with RocksDB's defaults.
struct Lz4BlockOptions {
  bool high_compression = false;     // LZ4HC (kLZ4HCCompression)
  int level = kRocksDbDefaultLevel;  // LZ4HC only; LZ4 ignores it, as RocksDB does
  std::string_view dictionary;       // raw dictionary bytes, may be empty
};

class Lz4BlockCodec {
 public:
  // Pools must outlive the codec.
  Lz4BlockCodec(Lz4Pool* lz4_pool, Lz4HcPool* lz4hc_pool, size_t max_uncompressed_size)
      : lz4_pool_(lz4_pool),
        lz4hc_pool_(lz4hc_pool),
        max_uncompressed_size_(max_uncompressed_size) {}

  // RocksDB block format. Replaces *out.
  absl::Status Compress(std::string_view input, const Lz4BlockOptions& options,
                        std::string* out) const;
  // LZ4 and LZ4HC blocks decode alike.
  absl::Status Decompress(std::string_view block, std::string_view dictionary,
                          std::string* out) const;

  // The string form on a stream the caller holds (RocksDB 10.7+'s working
  // areas); `rocksdb_level` as in Lz4BlockOptions. A null `stream` is
  // RocksDB 10.7+'s LZ4 without a dictionary: no stream at all
  // (CompressWithoutStreamInto; `dictionary` must then be empty).
  static absl::Status CompressWith(LZ4_stream_t* stream, std::string_view input,
                                   std::string_view dictionary, std::string* out);
  static absl::Status CompressHcWith(LZ4_streamHC_t* stream, int rocksdb_level,
                                     std::string_view input, std::string_view dictionary,
                                     std::string* out);

  // ---- into a caller's buffer: the payload only, no size prefix

  // On a stream the caller holds, new or pooled (as new): the payload size,
  // or FailedPrecondition when it does not fit dst[0, capacity).
  static absl::StatusOr<size_t> CompressInto(LZ4_stream_t* stream, std::string_view input,
                                             std::string_view dictionary, char* dst,
                                             size_t capacity);
  static absl::StatusOr<size_t> CompressHcInto(LZ4_streamHC_t* stream, int level,
                                               std::string_view input, std::string_view dictionary,
                                               char* dst, size_t capacity);
  // RocksDB 10.7+'s BuiltinLZ4CompressorV2NoDict::CompressBlock: no stream,
  // LZ4_compress_fast with acceleration 1 (its state on the stack). Not the
  // bytes a new stream's LZ4_compress_fast_continue writes: LZ4_compress_fast
  // hashes blocks under 64 KiB into 16-bit tables.
  static absl::StatusOr<size_t> CompressWithoutStreamInto(std::string_view input, char* dst,
                                                          size_t capacity);
  // Decodes a payload into exactly `size` bytes at `out`; DataLoss on a
  // corrupt, short or long payload.
  static absl::Status DecompressInto(std::string_view payload, std::string_view dictionary,
                                     char* out, size_t size);

  // lz4hc's level for RocksDB's: kRocksDbDefaultLevel becomes 0 (the default).
  static int HcLevel(int rocksdb_level) {
    return rocksdb_level == kRocksDbDefaultLevel ? 0 : rocksdb_level;
  }

 private:
  Lz4Pool* const lz4_pool_;
  Lz4HcPool* const lz4hc_pool_;
  const size_t max_uncompressed_size_;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_LZ4_BLOCK_CODEC_H_
