#include "tools/sst_replay/compaction_faces.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "rocksdb/convenience.h"
#include "rocksdb_plugin/legacy/listener.h"
#include "rocksdb_plugin/legacy/runtime.h"
#if ROCKPOOL_ROCKSDB_NATIVE_API
#include "rocksdb_plugin/native/rockpool_compression_manager.h"
#endif

namespace rockpool::replay {

namespace {

// Built against a RocksDB with CompressionManager (>= 10.4).
constexpr bool kNativeApi = ROCKPOOL_ROCKSDB_NATIVE_API != 0;

std::string PoolOptionsText(RockpoolOptions::MaxIdlePerKey max_idle_per_key) {
  return absl::StrCat("max_idle_per_key=", max_idle_per_key,
                      ";idle_seconds=", RockpoolOptions::kDefaultIdleSeconds);
}

}  // namespace

std::string CompactionFaces::Describe(RockpoolOptions::MaxIdlePerKey max_idle_per_key) {
  const std::string legacy_pooled =
      absl::StrCat("listeners={id=rockpool;", PoolOptionsText(max_idle_per_key), "}");
  if (!kNativeApi) {
    return absl::StrCat(
        "stock = rockpool's legacy face with measure_stock=true (RocksDB creates and frees "
        "every context as always, counted); pooled = ",
        legacy_pooled);
  }
  return absl::StrCat(
      "stock = RocksDB's built-in compression manager (counted by rockpool's legacy face with "
      "measure_stock=true); pooled = compression_manager={id=rockpool;",
      PoolOptionsText(max_idle_per_key), "} on every column family for SST blocks, plus ",
      legacy_pooled, " for blob files (figures: both faces' pools)");
}

absl::StatusOr<std::unique_ptr<CompactionFaces>> CompactionFaces::Create(
    Strategy strategy, [[maybe_unused]] RockpoolOptions::MaxIdlePerKey max_idle_per_key) {
  std::unique_ptr<CompactionFaces> faces(new CompactionFaces());
  const std::string options = strategy == Strategy::kStock ? std::string("measure_stock=true")
                                                           : PoolOptionsText(max_idle_per_key);
  if (rocksdb::Status s = legacy::NewRockpoolListener(options, &faces->listener_); !s.ok()) {
    return absl::InternalError(absl::StrCat("rockpool listener: ", s.ToString()));
  }
  const legacy::Interposition interposition = legacy::CheckInterposition();
  if (!interposition.zstd || !interposition.zlib || !interposition.zlib_layout) {
    return absl::InternalError(
        absl::StrCat("rockpool is not serving RocksDB's codec calls: ", interposition.ToString()));
  }
  faces->interposition_ = interposition.ToString();
#if ROCKPOOL_ROCKSDB_NATIVE_API
  if (strategy == Strategy::kPooled) {
    // As a user selects it: an options string naming the registered id.
    rocksdb::ConfigOptions config;
    rocksdb::ColumnFamilyOptions cf;
    const std::string text =
        absl::StrCat("compression_manager={id=rockpool;", PoolOptionsText(max_idle_per_key), "}");
    if (rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
            config, rocksdb::ColumnFamilyOptions(), text, &cf);
        !s.ok()) {
      return absl::InternalError(absl::StrCat(text, ": ", s.ToString()));
    }
    if (cf.compression_manager == nullptr || std::string_view(cf.compression_manager->Name()) !=
                                                 native::RockpoolCompressionManager::kClassName()) {
      return absl::InternalError(absl::StrCat(text, " did not make rockpool's manager"));
    }
    faces->native_pools_ =
        static_cast<native::RockpoolCompressionManager*>(cf.compression_manager.get())->pools();
    faces->manager_ = std::move(cf.compression_manager);
  }
#endif
  return faces;
}

void CompactionFaces::ApplyTo([[maybe_unused]] rocksdb::ColumnFamilyOptions* cf) const {
#if ROCKPOOL_ROCKSDB_NATIVE_API
  // Stock is the built-in manager even where the DB's own OPTIONS name one.
  cf->compression_manager = manager_;
#endif
}

CompressionPoolsStats CompactionFaces::Stats() const {
  CompressionPoolsStats s = legacy::Stats();
  if (native_pools_ != nullptr) Accumulate(&s, native_pools_->stats());
  return s;
}

PoolStats CompactionFaces::NativeStats() const {
  return native_pools_ != nullptr ? native_pools_->stats().Total() : PoolStats();
}

std::string CompactionFaces::Note() const {
  return absl::StrCat("RocksDB's codec calls: ", interposition_,
                      kNativeApi ? "; SST blocks of pooled runs: compression_manager=rockpool "
                                   "(metric native_leases)"
                                 : "");
}

}  // namespace rockpool::replay
