#include "rocksdb_plugin/native/rockpool_compression_manager.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_plugin/native/pooled_compressors.h"
#include "rocksdb_plugin/native/pooled_decompressor.h"
#include "rocksdb_plugin/option_glue.h"

namespace rockpool::native {

RockpoolCompressionManager::RockpoolCompressionManager()
    : CompressionManagerWrapper(rocksdb::GetBuiltinV2CompressionManager()),
      pools_(std::make_shared<CompressionPools>(options_.ToPoolOptions())),
      reporter_(std::make_shared<ManagerReporter>()) {
  RegisterOptions("RockpoolOptions", &options_, &RockpoolOptionTypeMap());
}

RockpoolCompressionManager::~RockpoolCompressionManager() {
  AppendCloseReport(options_.mode(), *pools_);
}

rocksdb::Status RockpoolCompressionManager::ConfigureOptions(
    const rocksdb::ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  if (!config_options.ignore_unknown_options) {
    for (const auto& [name, value] : opts_map) {
      if (!IsRockpoolOptionName(name)) {
        // The shared parser phrases the error, as in the legacy face
        // ("rockpool: unknown option ... (known options: ...)").
        RockpoolOptions scratch;
        rocksdb::Status s = ToRocksStatus(SetRockpoolOption(BareOptionName(name), value, &scratch));
        return s.ok() ? rocksdb::Status::InvalidArgument("rockpool: unknown option", name) : s;
      }
    }
  }
  return CompressionManagerWrapper::ConfigureOptions(config_options, opts_map, unused);
}

std::shared_ptr<rocksdb::CompressionManager>
RockpoolCompressionManager::FindCompatibleCompressionManager(rocksdb::Slice compatibility_name) {
  // Files this manager wrote record the built-in's name: read them with
  // rockpool's decompressors too (RocksDB < 11 wrappers defer to the wrapped
  // manager here).
  if (compatibility_name == rocksdb::Slice(CompatibilityName())) {
    // weak_from_this: no bad_weak_ptr exception for a manager that no
    // shared_ptr owns (RocksDB always holds one; a caller might not).
    if (std::shared_ptr<rocksdb::CompressionManager> self = weak_from_this().lock()) return self;
  }
  return wrapped_->FindCompatibleCompressionManager(compatibility_name);
}

rocksdb::Status RockpoolCompressionManager::PrepareOptions(
    const rocksdb::ConfigOptions& config_options) {
  pools_->SetOptions(options_.ToPoolOptions());
  return CompressionManagerWrapper::PrepareOptions(config_options);
}

std::unique_ptr<rocksdb::Compressor> RockpoolCompressionManager::GetCompressorForSST(
    const rocksdb::FilterBuildingContext& context, const rocksdb::CompressionOptions& opts,
    rocksdb::CompressionType preferred) {
  reporter_->AnnounceOnce(context.info_log, options_);
  auto builtin = wrapped_->GetCompressorForSST(context, opts, preferred);
  if (!pooling()) return builtin;
  std::unique_ptr<SstFileReport> report;
  if (context.info_log != nullptr) {
    try {
      report = std::make_unique<SstFileReport>(
          reporter_, pools_, context.info_log,
          SstFileHead(context.reason, context.column_family_name, context.level_at_creation),
          options_.mode());
    } catch (...) {
      // Out of memory: this file goes unreported.
    }
  }
  return WrapCompressor(std::move(builtin), opts, pools_, std::move(report));
}

std::unique_ptr<rocksdb::Compressor> RockpoolCompressionManager::GetCompressor(
    const rocksdb::CompressionOptions& opts, rocksdb::CompressionType type) {
  auto builtin = wrapped_->GetCompressor(opts, type);
  if (!pooling()) return builtin;
  return WrapCompressor(std::move(builtin), opts, pools_);
}

std::shared_ptr<rocksdb::Decompressor> RockpoolCompressionManager::Wrap(
    std::shared_ptr<rocksdb::Decompressor> builtin) {
  if (!pooling() || builtin == nullptr) return builtin;
  try {
    return std::make_shared<PooledDecompressor>(std::move(builtin), pools_);
  } catch (...) {
    return builtin;
  }
}

std::shared_ptr<rocksdb::Decompressor> RockpoolCompressionManager::GetDecompressor() {
  return Wrap(wrapped_->GetDecompressor());
}

std::shared_ptr<rocksdb::Decompressor> RockpoolCompressionManager::GetDecompressorOptimizeFor(
    rocksdb::CompressionType optimize_for_type) {
  return Wrap(wrapped_->GetDecompressorOptimizeFor(optimize_for_type));
}

std::shared_ptr<rocksdb::Decompressor> RockpoolCompressionManager::GetDecompressorForTypes(
    const rocksdb::CompressionType* types_begin, const rocksdb::CompressionType* types_end) {
  return Wrap(wrapped_->GetDecompressorForTypes(types_begin, types_end));
}

int RegisterRockpoolFactories(rocksdb::ObjectLibrary& library) {
  try {
    library.AddFactory<rocksdb::CompressionManager>(
        RockpoolCompressionManager::kClassName(),
        [](const std::string&, std::unique_ptr<rocksdb::CompressionManager>* guard,
           std::string* errmsg) -> rocksdb::CompressionManager* {
          try {
            *guard = std::make_unique<RockpoolCompressionManager>();
            return guard->get();
          } catch (...) {
            *errmsg = "rockpool: out of memory creating the compression manager";
            return nullptr;
          }
        });
    return 1;
  } catch (...) {
    return 0;
  }
}

void RegisterRockpoolCompressionManager() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterRockpoolFactories(*rocksdb::ObjectLibrary::Default()); });
}

}  // namespace rockpool::native
