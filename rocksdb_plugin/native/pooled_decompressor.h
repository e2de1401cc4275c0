// A Decompressor for RocksDB >= 10.4 whose zstd and zlib blocks are
// decompressed on pooled contexts; every other compression type goes to the
// wrapped built-in (BuiltinV2) decompressor, which also keeps handling the
// size prefix (ExtractUncompressedSize).
//
//   zstd: a WorkingArea is a leased ZSTD_DCtx; without one, each block
//         leases a context for the call. Only one-shot calls run on it
//         (ZstdDecompressContext::one_shot()), so it goes back to the pool
//         without a ZSTD_DCtx_reset. A dictionary is digested once
//         (ZSTD_DDict) per MaybeCloneForDict, i.e. per SST file.
//   zlib: each block leases an inflate stream instead of inflateInit2 /
//         inflateEnd, and inflates with Z_FINISH straight into the output,
//         so zlib never allocates its window.
// Results and errors match the built-in: Status::Corruption on bad data or
// a size mismatch; no exception escapes.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_DECOMPRESSOR_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_DECOMPRESSOR_H_

#include <memory>

#include "compression/compression_pools.h"
#include "compression/zstd_dictionary.h"
#include "rocksdb/advanced_compression.h"

namespace rockpool::native {

class PooledDecompressor final : public rocksdb::DecompressorWrapper {
 public:
  // `dict` (may be empty) is externally managed, as RocksDB's contract says.
  PooledDecompressor(std::shared_ptr<rocksdb::Decompressor> builtin,
                     std::shared_ptr<CompressionPools> pools, rocksdb::Slice dict = {});
  ~PooledDecompressor() override;

  const char* Name() const override { return "RockpoolDecompressor"; }
  ManagedWorkingArea ObtainWorkingArea(rocksdb::CompressionType preferred) override;
  void ReleaseWorkingArea(WorkingArea* wa) override;
  rocksdb::Status MaybeCloneForDict(const rocksdb::Slice& serialized_dict,
                                    std::unique_ptr<rocksdb::Decompressor>* out) override;
  size_t ApproximateOwnedMemoryUsage() const override;
  rocksdb::Status ExtractUncompressedSize(Args& args) override;
  rocksdb::Status DecompressBlock(const Args& args, char* uncompressed_output) override;

 private:
  rocksdb::Status DecompressZstd(const Args& args, char* out);
  rocksdb::Status DecompressZlib(const Args& args, char* out);

  const std::shared_ptr<CompressionPools> pools_;
  const rocksdb::Slice dict_;
  ZstdDDictPtr ddict_;  // by reference to dict_
};

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_POOLED_DECOMPRESSOR_H_
