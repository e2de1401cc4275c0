#include "rocksdb_plugin/native/pooled_compressors.h"

#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "compression/compression_type.h"
#include "compression/zlib_block_codec.h"
#include "compression/zstd_block_codec.h"
#include "compression/zstd_dictionary.h"
#include "compression/zstd_level.h"
#include "rocksdb_plugin/native/pooled_decompressor.h"

namespace rockpool::native {
namespace {

// RocksDB's enum and rockpool's one spelling of the type byte
// (compression/compression_type.h) are the same values.
static_assert(rocksdb::kNoCompression == compression_type::kNone);
static_assert(rocksdb::kZlibCompression == compression_type::kZlib);
static_assert(rocksdb::kZSTD == compression_type::kZSTD);
static_assert(rocksdb::CompressionOptions::kDefaultCompressionLevel == kRocksDbDefaultLevel);

// The level RocksDB >= 10.4 hands zstd (compression/zstd_level.h).
int ZstdLevel(int level) { return ZstdLevelFromRocksDb(level, RocksDbZstdLevels::kV10); }

using rocksdb::CompressionType;
using rocksdb::Slice;
using rocksdb::Status;

void Bypass(size_t* compressed_output_size, CompressionType* type) {
  *compressed_output_size = 0;
  *type = rocksdb::kNoCompression;
}

std::string_view View(Slice s) { return std::string_view(s.data(), s.size()); }

// The built-in's outcome for one block's compress result (compression/'s
// *Into calls): compressed as `codec`; "attempted, rejected" (size 1,
// kNoCompression) when the output did not fit the caller's buffer, which
// encodes the acceptable ratio; any other failure bypasses (size 0), except
// that a zstd library error is Corruption, as the built-in reports it.
Status Finish(const absl::StatusOr<size_t>& payload, const BlockPayloadArea& area,
              CompressionType codec, size_t* compressed_output_size, CompressionType* type) {
  if (payload.ok()) {
    *compressed_output_size = area.prefix_size + *payload;
    *type = codec;
    return Status::OK();
  }
  if (payload.status().code() == absl::StatusCode::kFailedPrecondition) {
    *compressed_output_size = 1;
    *type = rocksdb::kNoCompression;
    return Status::OK();
  }
  if (codec == rocksdb::kZSTD && payload.status().code() == absl::StatusCode::kInternal) {
    return Status::Corruption(std::string(payload.status().message()));
  }
  Bypass(compressed_output_size, type);
  return Status::OK();
}

// A leased ZSTD_CCtx, as a Compressor::WorkingArea.
struct ZstdWorkingArea : rocksdb::Compressor::WorkingArea {
  explicit ZstdWorkingArea(ZstdCompressPool::Lease l) : lease(std::move(l)) {}
  ZstdCompressPool::Lease lease;
};

// Wraps the built-in compressor `make_builtin` returns (null stays null:
// "no specialization") in a pooled compressor of type T (constructed with
// `extra...` after the pools), without letting an exception escape into
// RocksDB.
template <typename T, typename MakeBuiltin, typename... Extra>
std::unique_ptr<rocksdb::Compressor> Rewrap(MakeBuiltin make_builtin,
                                            const rocksdb::CompressionOptions& opts,
                                            const std::shared_ptr<CompressionPools>& pools,
                                            Extra... extra) {
  try {
    std::unique_ptr<rocksdb::Compressor> builtin = make_builtin();
    if (builtin == nullptr) return nullptr;
    return std::make_unique<T>(std::move(builtin), opts, pools, std::move(extra)...);
  } catch (...) {
    return nullptr;
  }
}

#if ROCKPOOL_OPTIMIZED_DECOMPRESSOR
// The built-in compressor's optimized decompressor, on rockpool's pools
// (null stays null: RocksDB then asks the manager, which is rockpool).
std::shared_ptr<rocksdb::Decompressor> PooledOptimizedDecompressor(
    const rocksdb::Compressor& builtin, const std::shared_ptr<CompressionPools>& pools) {
  std::shared_ptr<rocksdb::Decompressor> decompressor = builtin.GetOptimizedDecompressor();
  if (decompressor == nullptr) return nullptr;
  try {
    return std::make_shared<PooledDecompressor>(std::move(decompressor), pools);
  } catch (...) {
    return nullptr;
  }
}
#endif

}  // namespace

#if !ROCKPOOL_COMPRESS_INTO_BUFFER
Status CompressToString(Slice input, std::string* output, CompressionType* type,
                        absl::FunctionRef<Status(char*, size_t*, CompressionType*)> compress_into) {
  const size_t capacity = MaxCompressedBlockSize(input.size());
  try {
    output->resize(capacity);
  } catch (...) {
    output->clear();
    *type = rocksdb::kNoCompression;  // no memory for the output: store it uncompressed
    return Status::OK();
  }
  size_t size = capacity;
  Status s = compress_into(output->data(), &size, type);
  if (!s.ok() || *type == rocksdb::kNoCompression) {
    output->clear();
  } else {
    output->resize(size);
  }
  return s;
}
#endif

std::unique_ptr<rocksdb::Compressor> WrapCompressor(std::unique_ptr<rocksdb::Compressor> builtin,
                                                    const rocksdb::CompressionOptions& opts,
                                                    std::shared_ptr<CompressionPools> pools,
                                                    std::unique_ptr<SstFileReport> report) {
  if (builtin == nullptr) return nullptr;
  try {
    switch (builtin->GetPreferredCompressionType()) {
      case rocksdb::kZSTD:
        return std::make_unique<PooledZstdCompressor>(std::move(builtin), opts, std::move(pools),
                                                      std::move(report));
      case rocksdb::kZlibCompression:
        return std::make_unique<PooledZlibCompressor>(std::move(builtin), opts, std::move(pools),
                                                      std::move(report));
      default:
        return builtin;
    }
  } catch (...) {
    return nullptr;  // no compression for this file rather than an exception
  }
}

// ---------------------------------------------------------------- zstd

PooledZstdCompressor::PooledZstdCompressor(std::unique_ptr<rocksdb::Compressor> builtin,
                                           const rocksdb::CompressionOptions& opts,
                                           std::shared_ptr<CompressionPools> pools,
                                           std::unique_ptr<SstFileReport> report,
                                           std::optional<ZstdBlockClass> block_class)
    : IntoBufferCompressor(std::move(builtin)),
      report_(std::move(report)),
      opts_(opts),
      pools_(std::move(pools)),
      block_class_(block_class.value_or(wrapped_->GetSerializedDict().empty()
                                            ? ZstdBlockClass::kData
                                            : ZstdBlockClass::kDictData)) {
  const Slice dict = wrapped_->GetSerializedDict();
  if (!dict.empty()) {
    // As RocksDB's CompressionDict: digested once, at the sanitized level.
    cdict_ = DigestCDict(View(dict), ZstdLevel(opts_.level));
  }
}

PooledZstdCompressor::~PooledZstdCompressor() {
  if (report_ != nullptr) report_->Write();
}

#if ROCKPOOL_OPTIMIZED_DECOMPRESSOR
std::shared_ptr<rocksdb::Decompressor> PooledZstdCompressor::GetOptimizedDecompressor() const {
  return PooledOptimizedDecompressor(*wrapped_, pools_);
}
#endif

#if ROCKPOOL_COMPRESSOR_CLONE
std::unique_ptr<rocksdb::Compressor> PooledZstdCompressor::Clone() const {
  return Rewrap<PooledZstdCompressor>([&] { return wrapped_->Clone(); }, opts_, pools_,
                                      std::unique_ptr<SstFileReport>(),
                                      std::optional<ZstdBlockClass>(block_class_));
}

#endif

std::unique_ptr<rocksdb::Compressor> PooledZstdCompressor::MaybeCloneSpecialized(
    rocksdb::CacheEntryRole block_type, DictArgs&& dict_args) ROCKPOOL_MAYBE_CLONE_CONST {
  std::unique_ptr<rocksdb::Compressor> specialized = Rewrap<PooledZstdCompressor>(
      [&] { return wrapped_->MaybeCloneSpecialized(block_type, std::move(dict_args)); }, opts_,
      pools_);
  if (specialized != nullptr || block_type != rocksdb::CacheEntryRole::kIndexBlock ||
      block_class_ != ZstdBlockClass::kData) {
    return specialized;
  }
  // The built-in has nothing to specialize for index blocks; rockpool does:
  // the same compression (no dictionary), on contexts sized for index blocks.
  return Rewrap<PooledZstdCompressor>(
      [&]() -> std::unique_ptr<rocksdb::Compressor> {
#if ROCKPOOL_COMPRESSOR_CLONE
        return wrapped_->Clone();
#else
        return rocksdb::GetBuiltinV2CompressionManager()->GetCompressor(opts_, rocksdb::kZSTD);
#endif
      },
      opts_, pools_, std::unique_ptr<SstFileReport>(),
      std::optional<ZstdBlockClass>(ZstdBlockClass::kIndex));
}

rocksdb::Compressor::ManagedWorkingArea PooledZstdCompressor::ObtainWorkingArea() {
  ZstdKey key;
  key.role = static_cast<uint8_t>(block_class_);
  key.level = ZstdLevel(opts_.level);
  absl::StatusOr<ZstdCompressPool::Lease> lease = pools_->zstd_compress().Acquire(key);
  if (!lease.ok()) return {};
  // The built-in's sticky parameters, on a context the pool reset.
  if (!ZstdBlockCodec::PrepareForCompress2((*lease)->get(), ZstdLevel(opts_.level), opts_.checksum)
           .ok()) {
    return {};
  }
  auto* wa = new (std::nothrow) ZstdWorkingArea(*std::move(lease));
  if (wa == nullptr) return {};
  return ManagedWorkingArea(wa, this);
}

void PooledZstdCompressor::ReleaseWorkingArea(WorkingArea* wa) {
  delete static_cast<ZstdWorkingArea*>(wa);  // returns the context to the pool
}

Status PooledZstdCompressor::CompressInto(Slice uncompressed_data, char* compressed_output,
                                          size_t* compressed_output_size,
                                          CompressionType* out_compression_type,
                                          ManagedWorkingArea* wa) {
  const std::optional<BlockPayloadArea> area =
      StartBlock(uncompressed_data.size(), compressed_output, *compressed_output_size);
  if (!area.has_value()) {
    Bypass(compressed_output_size, out_compression_type);
    return Status::OK();
  }
  ManagedWorkingArea tmp_wa;
  if (wa == nullptr || wa->owner() != this || wa->get() == nullptr) {
    tmp_wa = ObtainWorkingArea();
    wa = &tmp_wa;
  }
  if (wa->get() == nullptr) {  // the pool could not provide a context
    Bypass(compressed_output_size, out_compression_type);
    return Status::OK();
  }
  ZSTD_CCtx* ctx = static_cast<ZstdWorkingArea*>(wa->get())->lease->get();
  return Finish(ZstdBlockCodec::Compress2Into(ctx, View(uncompressed_data), cdict_.get(),
                                              View(wrapped_->GetSerializedDict()), area->data,
                                              area->capacity),
                *area, rocksdb::kZSTD, compressed_output_size, out_compression_type);
}

// ---------------------------------------------------------------- zlib

PooledZlibCompressor::PooledZlibCompressor(std::unique_ptr<rocksdb::Compressor> builtin,
                                           const rocksdb::CompressionOptions& opts,
                                           std::shared_ptr<CompressionPools> pools,
                                           std::unique_ptr<SstFileReport> report)
    : IntoBufferCompressor(std::move(builtin)),
      report_(std::move(report)),
      opts_(opts),
      pools_(std::move(pools)) {}

PooledZlibCompressor::~PooledZlibCompressor() {
  if (report_ != nullptr) report_->Write();
}

#if ROCKPOOL_OPTIMIZED_DECOMPRESSOR
std::shared_ptr<rocksdb::Decompressor> PooledZlibCompressor::GetOptimizedDecompressor() const {
  return PooledOptimizedDecompressor(*wrapped_, pools_);
}
#endif

#if ROCKPOOL_COMPRESSOR_CLONE
std::unique_ptr<rocksdb::Compressor> PooledZlibCompressor::Clone() const {
  return Rewrap<PooledZlibCompressor>([&] { return wrapped_->Clone(); }, opts_, pools_);
}

#endif

std::unique_ptr<rocksdb::Compressor> PooledZlibCompressor::MaybeCloneSpecialized(
    rocksdb::CacheEntryRole block_type, DictArgs&& dict_args) ROCKPOOL_MAYBE_CLONE_CONST {
  return Rewrap<PooledZlibCompressor>(
      [&] { return wrapped_->MaybeCloneSpecialized(block_type, std::move(dict_args)); }, opts_,
      pools_);
}

Status PooledZlibCompressor::CompressInto(Slice uncompressed_data, char* compressed_output,
                                          size_t* compressed_output_size,
                                          CompressionType* out_compression_type,
                                          ManagedWorkingArea*) {
  const std::optional<BlockPayloadArea> area =
      StartBlock(uncompressed_data.size(), compressed_output, *compressed_output_size);
  if (!area.has_value()) {
    Bypass(compressed_output_size, out_compression_type);
    return Status::OK();
  }
  ZlibBlockOptions block_options;
  block_options.level = opts_.level;  // kDefaultCompressionLevel is kRocksDbDefaultLevel
  block_options.window_bits = opts_.window_bits;
  block_options.strategy = opts_.strategy;
  // Invalid parameters fail here as deflateInit2 fails in the built-in: bypass.
  absl::StatusOr<DeflatePool::Lease> lease =
      pools_->deflate().Acquire(DeflateKeyFor(block_options));
  if (!lease.ok()) {
    Bypass(compressed_output_size, out_compression_type);
    return Status::OK();
  }
  return Finish(
      ZlibBlockCodec::DeflateInto((*lease)->get(), View(uncompressed_data),
                                  View(wrapped_->GetSerializedDict()), area->data, area->capacity),
      *area, rocksdb::kZlibCompression, compressed_output_size, out_compression_type);
}

}  // namespace rockpool::native
