#include "rocksdb_plugin/native/rockpool_compression_manager.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_type.h"
#include "rocksdb_plugin/native/pooled_compressors.h"
#include "rocksdb_plugin/native/pooled_decompressor.h"

namespace rockpool::native {
namespace {

using rocksdb::OptionTypeInfo;

// Every RockpoolOptions field is parsed, printed and compared through the
// shared rocksdb_plugin/options.h functions, so both faces accept exactly the
// same names and values and report the same errors.
const std::unordered_map<std::string, OptionTypeInfo>& OptionTypeMap() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string, OptionTypeInfo>();
    for (const std::string& name : RockpoolOptionNames()) {
      m->emplace(name,
                 OptionTypeInfo(
                     0, rocksdb::OptionType::kUnknown, rocksdb::OptionVerificationType::kNormal,
                     rocksdb::OptionTypeFlags::kNone,
                     [](const rocksdb::ConfigOptions&, const std::string& opt,
                        const std::string& value, void* addr) {
                       absl::Status s =
                           SetRockpoolOption(opt, value, static_cast<RockpoolOptions*>(addr));
                       return s.ok() ? rocksdb::Status::OK()
                                     : rocksdb::Status::InvalidArgument(std::string(s.message()));
                     },
                     [](const rocksdb::ConfigOptions&, const std::string& opt, const void* addr,
                        std::string* value) {
                       absl::StatusOr<std::string> v =
                           GetRockpoolOption(opt, *static_cast<const RockpoolOptions*>(addr));
                       if (!v.ok()) return rocksdb::Status::InvalidArgument(std::string(v.status().message()));
                       *value = *v;
                       return rocksdb::Status::OK();
                     },
                     [](const rocksdb::ConfigOptions&, const std::string& opt, const void* a,
                        const void* b, std::string* mismatch) {
                       auto va = GetRockpoolOption(opt, *static_cast<const RockpoolOptions*>(a));
                       auto vb = GetRockpoolOption(opt, *static_cast<const RockpoolOptions*>(b));
                       if (va.ok() && vb.ok() && *va == *vb) return true;
                       *mismatch = opt;
                       return false;
                     }));
    }
    return m;
  }();
  return *map;
}

}  // namespace

RockpoolCompressionManager::RockpoolCompressionManager()
    : CompressionManagerWrapper(rocksdb::GetBuiltinV2CompressionManager()),
      pools_(std::make_shared<CompressionPools>(options_.ToPoolOptions())),
      reporter_(std::make_shared<ManagerReporter>()) {
  RegisterOptions("RockpoolOptions", &options_, &OptionTypeMap());
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
      if (!OptionTypeMap().contains(name)) {
        return rocksdb::Status::InvalidArgument("rockpool: unknown option", name);
      }
    }
  }
  return CompressionManagerWrapper::ConfigureOptions(config_options, opts_map, unused);
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
