#include "rocksdb_plugin/native/pooled_decompressor.h"

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <new>
#include <string>
#include <utility>

namespace rockpool::native {
namespace {

using rocksdb::Status;

struct ZstdDecompressWorkingArea : rocksdb::Decompressor::WorkingArea {
  explicit ZstdDecompressWorkingArea(ZstdDecompressPool::Lease l) : lease(std::move(l)) {}
  ZstdDecompressPool::Lease lease;
};

}  // namespace

PooledDecompressor::PooledDecompressor(std::shared_ptr<rocksdb::Decompressor> builtin,
                                       std::shared_ptr<CompressionPools> pools, rocksdb::Slice dict)
    : DecompressorWrapper(std::move(builtin)), pools_(std::move(pools)), dict_(dict) {
  if (!dict_.empty()) ddict_ = ZSTD_createDDict_byReference(dict_.data(), dict_.size());
}

PooledDecompressor::~PooledDecompressor() { ZSTD_freeDDict(ddict_); }

rocksdb::Decompressor::ManagedWorkingArea PooledDecompressor::ObtainWorkingArea(
    rocksdb::CompressionType preferred) {
  if (preferred != rocksdb::kZSTD) return {};
  absl::StatusOr<ZstdDecompressPool::Lease> lease = pools_->zstd_decompress().Acquire(ZstdKey{});
  if (!lease.ok()) return {};
  auto* wa = new (std::nothrow) ZstdDecompressWorkingArea(*std::move(lease));
  if (wa == nullptr) return {};
  return ManagedWorkingArea(wa, this);
}

void PooledDecompressor::ReleaseWorkingArea(WorkingArea* wa) {
  delete static_cast<ZstdDecompressWorkingArea*>(wa);
}

Status PooledDecompressor::MaybeCloneForDict(const rocksdb::Slice& serialized_dict,
                                             std::unique_ptr<rocksdb::Decompressor>* out) {
  try {
    std::unique_ptr<rocksdb::Decompressor> builtin_with_dict;
    Status s = wrapped_->MaybeCloneForDict(serialized_dict, &builtin_with_dict);
    if (!s.ok()) return s;
    auto clone =
        std::make_unique<PooledDecompressor>(std::move(builtin_with_dict), pools_, serialized_dict);
    if (clone->ddict_ == nullptr) return Status::MemoryLimit("rockpool: cannot digest dictionary");
    *out = std::move(clone);
    return Status::OK();
  } catch (...) {
    return Status::MemoryLimit("rockpool: out of memory cloning a decompressor");
  }
}

size_t PooledDecompressor::ApproximateOwnedMemoryUsage() const {
  return sizeof(*this) + wrapped_->ApproximateOwnedMemoryUsage() +
         (ddict_ != nullptr ? ZSTD_sizeof_DDict(ddict_) : 0);
}

// zstd and zlib blocks carry RocksDB's standard size prefix, which the base
// class reads (the built-in does the same for both): calling it directly
// saves the wrapper's second virtual dispatch on every block read (12
// instructions per block, callgrind, bench/native).
Status PooledDecompressor::ExtractUncompressedSize(Args& args) {
  switch (args.compression_type) {
    case rocksdb::kZSTD:
    case rocksdb::kZlibCompression:
      return rocksdb::Decompressor::ExtractUncompressedSize(args);
    default:
      return wrapped_->ExtractUncompressedSize(args);
  }
}

Status PooledDecompressor::DecompressBlock(const Args& args, char* uncompressed_output) {
  switch (args.compression_type) {
    case rocksdb::kZSTD:
      return DecompressZstd(args, uncompressed_output);
    case rocksdb::kZlibCompression:
      return DecompressZlib(args, uncompressed_output);
    default:
      return wrapped_->DecompressBlock(args, uncompressed_output);
  }
}

Status PooledDecompressor::DecompressZstd(const Args& args, char* out) {
  ZSTD_DCtx* dctx = nullptr;
  ZstdDecompressPool::Lease tmp;
  if (args.working_area != nullptr && args.working_area->owner() == this &&
      args.working_area->get() != nullptr) {
    dctx = static_cast<ZstdDecompressWorkingArea*>(args.working_area->get())->lease->one_shot();
  } else {
    absl::StatusOr<ZstdDecompressPool::Lease> lease = pools_->zstd_decompress().Acquire(ZstdKey{});
    if (!lease.ok()) return Status::MemoryLimit("rockpool: " + lease.status().ToString());
    tmp = *std::move(lease);
    dctx = tmp->one_shot();
  }
  const size_t n =
      ddict_ != nullptr
          ? ZSTD_decompress_usingDDict(dctx, out, args.uncompressed_size,
                                       args.compressed_data.data(), args.compressed_data.size(),
                                       ddict_)
          : ZSTD_decompressDCtx(dctx, out, args.uncompressed_size, args.compressed_data.data(),
                                args.compressed_data.size());
  if (ZSTD_isError(n)) return Status::Corruption(std::string("ZSTD ") + ZSTD_getErrorName(n));
  if (n != args.uncompressed_size) return Status::Corruption("ZSTD decompression size mismatch");
  return Status::OK();
}

Status PooledDecompressor::DecompressZlib(const Args& args, char* out) {
  // -15 inflates every raw stream RocksDB writes (window_bits -9..-15).
  absl::StatusOr<InflatePool::Lease> lease = pools_->inflate().Acquire(InflateKey{-15});
  if (!lease.ok()) return Status::MemoryLimit("rockpool: " + lease.status().ToString());
  z_stream* stream = (*lease)->get();
  if (!dict_.empty()) {
    const int st = inflateSetDictionary(stream, reinterpret_cast<const Bytef*>(dict_.data()),
                                        static_cast<unsigned int>(dict_.size()));
    if (st != Z_OK) {
      return Status::Corruption("Failed to initialize zlib dictionary: " + std::to_string(st));
    }
  }
  Bytef scratch;
  stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(args.compressed_data.data()));
  stream->avail_in = static_cast<unsigned int>(args.compressed_data.size());
  stream->next_out = args.uncompressed_size == 0 ? &scratch : reinterpret_cast<Bytef*>(out);
  stream->avail_out = static_cast<unsigned int>(args.uncompressed_size);
  const int st = inflate(stream, Z_FINISH);
  if (st != Z_STREAM_END) return Status::Corruption("Failed zlib inflate: " + std::to_string(st));
  if (stream->avail_out != 0) return Status::Corruption("Size mismatch decompressing zlib data");
  return Status::OK();
}

}  // namespace rockpool::native
