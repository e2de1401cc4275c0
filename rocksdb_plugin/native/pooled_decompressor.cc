#include "rocksdb_plugin/native/pooled_decompressor.h"

#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "compression/zlib_block_codec.h"
#include "compression/zstd_block_codec.h"

namespace rockpool::native {
namespace {

using rocksdb::Status;

std::string_view View(rocksdb::Slice s) { return std::string_view(s.data(), s.size()); }

// As the built-in reports a block it cannot decompress: Corruption, except
// running out of memory.
Status BlockStatus(const absl::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.code() == absl::StatusCode::kResourceExhausted) {
    return Status::MemoryLimit(std::string(s.message()));
  }
  return Status::Corruption(std::string(s.message()));
}

struct ZstdDecompressWorkingArea : rocksdb::Decompressor::WorkingArea {
  explicit ZstdDecompressWorkingArea(ZstdDecompressPool::Lease l) : lease(std::move(l)) {}
  ZstdDecompressPool::Lease lease;
};

}  // namespace

PooledDecompressor::PooledDecompressor(std::shared_ptr<rocksdb::Decompressor> builtin,
                                       std::shared_ptr<CompressionPools> pools, rocksdb::Slice dict)
    : DecompressorWrapper(std::move(builtin)), pools_(std::move(pools)), dict_(dict) {
  if (!dict_.empty()) ddict_ = DigestDDictByReference(View(dict_));
}

PooledDecompressor::~PooledDecompressor() = default;

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
  return sizeof(*this) + wrapped_->ApproximateOwnedMemoryUsage() + DigestedBytes(ddict_.get());
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
  return BlockStatus(ZstdBlockCodec::DecompressInto(dctx, View(args.compressed_data), ddict_.get(),
                                                    out, args.uncompressed_size));
}

Status PooledDecompressor::DecompressZlib(const Args& args, char* out) {
  // -15 inflates every raw stream RocksDB writes (window_bits -9..-15).
  absl::StatusOr<InflatePool::Lease> lease = pools_->inflate().Acquire(InflateKey{-15});
  if (!lease.ok()) return Status::MemoryLimit("rockpool: " + lease.status().ToString());
  return BlockStatus(ZlibBlockCodec::InflateInto((*lease)->get(), View(args.compressed_data),
                                                 View(dict_), out, args.uncompressed_size));
}

}  // namespace rockpool::native
