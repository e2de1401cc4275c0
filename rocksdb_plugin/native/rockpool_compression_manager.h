// The native face: a rocksdb::CompressionManager (RocksDB >= 10.4) selected
// with the column family option
//
//   compression_manager=rockpool
//   compression_manager={id=rockpool;max_idle_per_key=8;idle_seconds=60}
//
// It wraps RocksDB's built-in BuiltinV2 manager and keeps its
// CompatibilityName ("BuiltinV2"): SST files record the built-in schema and
// stay readable by stock RocksDB, ldb and sst_dump without rockpool. zstd and
// zlib compressors and decompressors draw their contexts from this manager's
// pools (see pooled_compressors.h, pooled_decompressor.h); every other
// compression type is the built-in's. Options are RockpoolOptions
// (rocksdb_plugin/options.h); a bad name or value fails the options string
// with Status::InvalidArgument naming the option.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_ROCKPOOL_COMPRESSION_MANAGER_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_ROCKPOOL_COMPRESSION_MANAGER_H_

#include <memory>
#include <string>
#include <unordered_map>

#include "compression/compression_pools.h"
#include "rocksdb/advanced_compression.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_plugin/native/log_report.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::native {

class RockpoolCompressionManager final : public rocksdb::CompressionManagerWrapper {
 public:
  static const char* kClassName() { return "rockpool"; }

  RockpoolCompressionManager();
  // With ROCKPOOL_NATIVE_STATS set, appends this manager's close report
  // (log_report.h) if it leased any context.
  ~RockpoolCompressionManager() override;

  const char* Name() const override { return kClassName(); }
  rocksdb::Status PrepareOptions(const rocksdb::ConfigOptions& config_options) override;

  std::unique_ptr<rocksdb::Compressor> GetCompressorForSST(
      const rocksdb::FilterBuildingContext& context, const rocksdb::CompressionOptions& opts,
      rocksdb::CompressionType preferred) override;
  std::unique_ptr<rocksdb::Compressor> GetCompressor(const rocksdb::CompressionOptions& opts,
                                                     rocksdb::CompressionType type) override;
  std::shared_ptr<rocksdb::CompressionManager> FindCompatibleCompressionManager(
      rocksdb::Slice compatibility_name) override;
  std::shared_ptr<rocksdb::Decompressor> GetDecompressor() override;
  std::shared_ptr<rocksdb::Decompressor> GetDecompressorOptimizeFor(
      rocksdb::CompressionType optimize_for_type) override;
  std::shared_ptr<rocksdb::Decompressor> GetDecompressorForTypes(
      const rocksdb::CompressionType* types_begin,
      const rocksdb::CompressionType* types_end) override;

  const RockpoolOptions& options() const { return options_; }
  // An unknown option name is InvalidArgument naming it (RocksDB's own
  // message would name only "compression_manager"); names may carry a
  // "rockpool." prefix (rocksdb_plugin/option_glue.h).
  rocksdb::Status ConfigureOptions(const rocksdb::ConfigOptions& config_options,
                                   const std::unordered_map<std::string, std::string>& opts_map,
                                   std::unordered_map<std::string, std::string>* unused) override;
  // The pools behind every compressor and decompressor this manager made.
  const std::shared_ptr<CompressionPools>& pools() const { return pools_; }

 private:
  std::shared_ptr<rocksdb::Decompressor> Wrap(std::shared_ptr<rocksdb::Decompressor> builtin);
  bool pooling() const { return options_.mode() != RockpoolOptions::Mode::kForward; }

  RockpoolOptions options_;
  std::shared_ptr<CompressionPools> pools_;
  std::shared_ptr<ManagerReporter> reporter_;
};

// Adds the "rockpool" CompressionManager factory to `library`; returns the
// number of factories added (1, or 0 if out of memory). RocksDB's plugin
// entry point (rockpool/rockpool_plugin.cc) calls it with the plugin's own
// library.
int RegisterRockpoolFactories(rocksdb::ObjectLibrary& library);

// Registers the factory with ObjectLibrary::Default(), once. Linking
// //rocksdb_plugin/native (load_registration.cc) calls this at load time;
// a RocksDB built with ROCKSDB_PLUGINS=rockpool registers through
// RegisterRockpoolPlugin instead.
void RegisterRockpoolCompressionManager();

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_ROCKPOOL_COMPRESSION_MANAGER_H_
