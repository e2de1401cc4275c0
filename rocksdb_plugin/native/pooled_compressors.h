// Compressors for RocksDB >= 10.4's CompressionManager API whose zstd and
// zlib contexts come from rockpool's pools.
//
// Each wraps the built-in (BuiltinV2) compressor RocksDB chose for the same
// options, and keeps everything but the context lifecycle: dictionary
// guidance and training, the serialized dictionary, parallel-thread advice
// and the compression type all come from the built-in compressor, and
// CompressBlock makes exactly the built-in's library calls, so blocks are
// byte-identical and files keep the BuiltinV2 schema.
//
//   zstd: a WorkingArea is a leased ZSTD_CCtx (level and checksum flag set
//         as the built-in sets them); ReleaseWorkingArea returns it, and the
//         pool resets it (session and parameters).
//   zlib: each block leases a deflate stream keyed by (level, window_bits,
//         memLevel 8, strategy) instead of deflateInit2/deflateEnd.
// No exception escapes: allocation failures make a block "bypassed"
// (stored uncompressed), as the built-in does when its library fails.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_COMPRESSORS_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_COMPRESSORS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "compression/compression_pools.h"
#include "compression/zstd_dictionary.h"
#include "rocksdb/advanced_compression.h"
#include "rocksdb_plugin/native/compressor_api.h"
#include "rocksdb_plugin/native/log_report.h"

namespace rockpool::native {

// Wraps `builtin` if it is a zstd or zlib compressor; returns it unchanged
// otherwise (other codecs stay built-in, and `report` is dropped unwritten).
// `pools` outlives every compressor through the shared_ptr. A compressor
// given a `report` (the one RocksDB gets for an SST file) writes it when it
// is destroyed; its clones do not.
std::unique_ptr<rocksdb::Compressor> WrapCompressor(
    std::unique_ptr<rocksdb::Compressor> builtin, const rocksdb::CompressionOptions& opts,
    std::shared_ptr<CompressionPools> pools, std::unique_ptr<SstFileReport> report = nullptr);

// Which contexts a zstd compressor leases (the role of its ZstdKey, with the
// level; compression/zstd_contexts.h): RocksDB >= 10.4 gives each SST file one
// working area for its index blocks and one for its data blocks, and their
// sizes differ by 3x and more (a 4 MiB file's index block is ~45 KiB, its
// data blocks 4 KiB), so one context serving both in turn would have zstd
// shrink and regrow its workspace for every file. Dictionary compression
// sizes the workspace by the digested dictionary: a class of its own.
enum class ZstdBlockClass : uint8_t {
  kData = 4,      // an SST file's data blocks
  kIndex = 5,     // its index (and other non-data) blocks
  kDictData = 6,  // data blocks with a dictionary (sized by the CDict)
};

#if !ROCKPOOL_COMPRESS_INTO_BUFFER
// RocksDB < 10.6 hands CompressBlock a std::string and judges the ratio
// itself: compress into a buffer no block can overflow (varint32 prefix +
// the larger of zstd's bound and deflate's bound for any parameters), then
// trim. kNoCompression leaves the string empty, as the built-in does.
rocksdb::Status CompressToString(
    rocksdb::Slice input, std::string* output, rocksdb::CompressionType* type,
    absl::FunctionRef<rocksdb::Status(char*, size_t*, rocksdb::CompressionType*)> compress_into);
#endif

// Both pooled compressors compress a block into the caller's buffer
// (CompressInto, RocksDB >= 10.6's CompressBlock). This base adapts
// CompressBlock to the RocksDB it is compiled against, once for both.
template <typename Derived>
class IntoBufferCompressor : public rocksdb::CompressorWrapper {
 public:
  using rocksdb::CompressorWrapper::CompressorWrapper;

#if ROCKPOOL_COMPRESS_INTO_BUFFER
  rocksdb::Status CompressBlock(rocksdb::Slice uncompressed_data, char* compressed_output,
                                size_t* compressed_output_size,
                                rocksdb::CompressionType* out_compression_type,
                                ManagedWorkingArea* working_area) override {
    return static_cast<Derived*>(this)->CompressInto(uncompressed_data, compressed_output,
                                                     compressed_output_size, out_compression_type,
                                                     working_area);
  }
#else
  rocksdb::Status CompressBlock(rocksdb::Slice uncompressed_data, std::string* compressed_output,
                                rocksdb::CompressionType* out_compression_type,
                                ManagedWorkingArea* working_area) override {
    return CompressToString(uncompressed_data, compressed_output, out_compression_type,
                            [&](char* out, size_t* out_size, rocksdb::CompressionType* type) {
                              return static_cast<Derived*>(this)->CompressInto(
                                  uncompressed_data, out, out_size, type, working_area);
                            });
  }
#endif
};

class PooledZstdCompressor final : public IntoBufferCompressor<PooledZstdCompressor> {
 public:
  // `block_class` defaults to kData, or kDictData if `builtin` has a
  // dictionary.
  PooledZstdCompressor(std::unique_ptr<rocksdb::Compressor> builtin,
                       const rocksdb::CompressionOptions& opts,
                       std::shared_ptr<CompressionPools> pools,
                       std::unique_ptr<SstFileReport> report = nullptr,
                       std::optional<ZstdBlockClass> block_class = std::nullopt);
  ~PooledZstdCompressor() override;

  const char* Name() const override { return "RockpoolZstdCompressor"; }
#if ROCKPOOL_OPTIMIZED_DECOMPRESSOR
  // The built-in's decompressor for this compressor's output, pooled: the
  // table builder verifies blocks (verify_compression) and warms dictionary
  // blocks in the block cache with it.
  std::shared_ptr<rocksdb::Decompressor> GetOptimizedDecompressor() const override;
#endif
#if ROCKPOOL_COMPRESSOR_CLONE
  std::unique_ptr<rocksdb::Compressor> Clone() const override;
#endif
  std::unique_ptr<rocksdb::Compressor> MaybeCloneSpecialized(
      rocksdb::CacheEntryRole block_type, DictArgs&& dict_args) ROCKPOOL_MAYBE_CLONE_CONST override;
  // Index blocks get a compressor of their own (kIndex); the built-in
  // decides everything else (dictionaries).
  ManagedWorkingArea ObtainWorkingArea() override;
  void ReleaseWorkingArea(WorkingArea* wa) override;
  ZstdBlockClass block_class() const { return block_class_; }

 private:
  friend class IntoBufferCompressor<PooledZstdCompressor>;
  // One block into the caller's buffer: RocksDB >= 10.6's CompressBlock.
  rocksdb::Status CompressInto(rocksdb::Slice uncompressed_data, char* compressed_output,
                               size_t* compressed_output_size,
                               rocksdb::CompressionType* out_compression_type,
                               ManagedWorkingArea* working_area);

  const std::unique_ptr<SstFileReport> report_;  // null for clones
  const rocksdb::CompressionOptions opts_;
  const std::shared_ptr<CompressionPools> pools_;
  const ZstdBlockClass block_class_;
  ZstdCDictPtr cdict_;  // digested once per compressor (file)
};

class PooledZlibCompressor final : public IntoBufferCompressor<PooledZlibCompressor> {
 public:
  PooledZlibCompressor(std::unique_ptr<rocksdb::Compressor> builtin,
                       const rocksdb::CompressionOptions& opts,
                       std::shared_ptr<CompressionPools> pools,
                       std::unique_ptr<SstFileReport> report = nullptr);
  ~PooledZlibCompressor() override;

  const char* Name() const override { return "RockpoolZlibCompressor"; }
#if ROCKPOOL_OPTIMIZED_DECOMPRESSOR
  // The built-in's decompressor for this compressor's output, pooled: the
  // table builder verifies blocks (verify_compression) and warms dictionary
  // blocks in the block cache with it.
  std::shared_ptr<rocksdb::Decompressor> GetOptimizedDecompressor() const override;
#endif
#if ROCKPOOL_COMPRESSOR_CLONE
  std::unique_ptr<rocksdb::Compressor> Clone() const override;
#endif
  std::unique_ptr<rocksdb::Compressor> MaybeCloneSpecialized(
      rocksdb::CacheEntryRole block_type, DictArgs&& dict_args) ROCKPOOL_MAYBE_CLONE_CONST override;

 private:
  friend class IntoBufferCompressor<PooledZlibCompressor>;
  // One block into the caller's buffer: RocksDB >= 10.6's CompressBlock.
  rocksdb::Status CompressInto(rocksdb::Slice uncompressed_data, char* compressed_output,
                               size_t* compressed_output_size,
                               rocksdb::CompressionType* out_compression_type,
                               ManagedWorkingArea* working_area);

  const std::unique_ptr<SstFileReport> report_;  // null for clones
  const rocksdb::CompressionOptions opts_;
  const std::shared_ptr<CompressionPools> pools_;
};

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_COMPRESSORS_H_
