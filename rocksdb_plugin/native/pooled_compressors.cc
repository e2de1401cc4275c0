#include "rocksdb_plugin/native/pooled_compressors.h"

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "compression/coding.h"
#include "compression/compression_type.h"
#include "compression/zlib_block_codec.h"
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

// RocksDB's StartCompressBlockV2: varint32 size prefix, then the payload
// space left in the caller's buffer (which encodes the acceptable ratio).
// Returns {nullptr, 0} when compression is bypassed.
std::pair<char*, size_t> StartBlock(Slice input, char* output, size_t output_size) {
  if (input.size() > std::numeric_limits<uint32_t>::max() || output_size <= 5) {
    return {nullptr, 0};
  }
  std::string prefix;  // at most 5 bytes: no allocation (small-string buffer)
  PutVarint32(&prefix, static_cast<uint32_t>(input.size()));
  std::memcpy(output, prefix.data(), prefix.size());
  return {output + prefix.size(), output_size - prefix.size()};
}

void Bypass(size_t* compressed_output_size, CompressionType* type) {
  *compressed_output_size = 0;
  *type = rocksdb::kNoCompression;
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
  const size_t n = input.size();
  const size_t deflate_bound = n + ((n + 7) >> 3) + ((n + 63) >> 6) + 5 + 6;
  const size_t capacity = 5 + std::max(ZSTD_compressBound(n), deflate_bound);
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
    cdict_ = ZSTD_createCDict(dict.data(), dict.size(), ZstdLevel(opts_.level));
  }
}

PooledZstdCompressor::~PooledZstdCompressor() {
  ZSTD_freeCDict(cdict_);
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
  key.kind = static_cast<uint8_t>(block_class_);
  key.level = ZstdLevel(opts_.level);
  absl::StatusOr<ZstdCompressPool::Lease> lease = pools_->zstd_compress().Acquire(key);
  if (!lease.ok()) return {};
  ZSTD_CCtx* cctx = (*lease)->get();
  // The built-in's sticky parameters, on a context the pool reset.
  if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZstdLevel(opts_.level)))) {
    return {};
  }
  if (opts_.checksum && ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1))) {
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
  auto [alg_output, alg_max_output_size] =
      StartBlock(uncompressed_data, compressed_output, *compressed_output_size);
  if (alg_max_output_size == 0) {
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
  if (cdict_ != nullptr) {
    ZSTD_CCtx_refCDict(ctx, cdict_);
  } else {
    const Slice dict = wrapped_->GetSerializedDict();
    ZSTD_CCtx_loadDictionary(ctx, dict.data(), dict.size());
  }
  const size_t outlen = ZSTD_compress2(ctx, alg_output, alg_max_output_size,
                                       uncompressed_data.data(), uncompressed_data.size());
  if (!ZSTD_isError(outlen)) {
    *compressed_output_size = outlen + static_cast<size_t>(alg_output - compressed_output);
    *out_compression_type = rocksdb::kZSTD;
    return Status::OK();
  }
  if (ZSTD_getErrorCode(outlen) != ZSTD_error_dstSize_tooSmall) {
    return Status::Corruption(std::string("ZSTD_compress2 failed: ") + ZSTD_getErrorName(outlen));
  }
  *compressed_output_size = 1;  // attempted, rejected (ratio)
  *out_compression_type = rocksdb::kNoCompression;
  return Status::OK();
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
  auto [alg_output, alg_max_output_size] =
      StartBlock(uncompressed_data, compressed_output, *compressed_output_size);
  if (alg_max_output_size == 0) {
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
  z_stream* stream = (*lease)->get();
  const Slice dict = wrapped_->GetSerializedDict();
  if (!dict.empty() && deflateSetDictionary(stream, reinterpret_cast<const Bytef*>(dict.data()),
                                            static_cast<unsigned int>(dict.size())) != Z_OK) {
    Bypass(compressed_output_size, out_compression_type);
    return Status::OK();
  }
  stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(uncompressed_data.data()));
  stream->avail_in = static_cast<unsigned int>(uncompressed_data.size());
  stream->next_out = reinterpret_cast<Bytef*>(alg_output);
  stream->avail_out = static_cast<unsigned int>(alg_max_output_size);
  const int st = deflate(stream, Z_FINISH);
  const size_t outlen = alg_max_output_size - stream->avail_out;
  if (st == Z_STREAM_END) {
    *compressed_output_size = outlen + static_cast<size_t>(alg_output - compressed_output);
    *out_compression_type = rocksdb::kZlibCompression;
    return Status::OK();
  }
  *compressed_output_size = 1;  // attempted, rejected
  *out_compression_type = rocksdb::kNoCompression;
  return Status::OK();
}

}  // namespace rockpool::native
