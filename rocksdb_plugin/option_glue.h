// RockpoolOptions inside RocksDB's option machinery (Configurable,
// OptionTypeInfo), shared by both faces: the `rockpool` EventListener
// (RocksDB 7.8.3) and the `rockpool` CompressionManager (RocksDB >= 10.4).
// Header-only on purpose: each face compiles it against its own RocksDB.
//
// Contract, the same in both faces:
//  - every option is parsed, printed and compared by options.h, so both
//    accept exactly the same names and values;
//  - RocksDB may hand over a prefixed name ("rockpool.max_idle_per_key"):
//    the prefix is stripped;
//  - an unknown name or a bad value is Status::InvalidArgument naming the
//    option; any other error keeps its own code (ToRocksStatus), none
//    becomes Corruption unless it was data loss.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_OPTION_GLUE_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_OPTION_GLUE_H_

#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "rocksdb/convenience.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/options_type.h"
#include "rocksdb_plugin/options.h"

namespace rockpool {

// absl::Status -> rocksdb::Status, code for code.
inline rocksdb::Status ToRocksStatus(const absl::Status& s) {
  if (s.ok()) return rocksdb::Status::OK();
  const std::string message(s.message());
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      return rocksdb::Status::InvalidArgument(message);
    case absl::StatusCode::kNotFound:
      return rocksdb::Status::NotFound(message);
    case absl::StatusCode::kUnimplemented:
      return rocksdb::Status::NotSupported(message);
    case absl::StatusCode::kResourceExhausted:
      return rocksdb::Status::MemoryLimit(message);
    case absl::StatusCode::kDataLoss:
      return rocksdb::Status::Corruption(message);
    case absl::StatusCode::kUnavailable:
      return rocksdb::Status::Busy(message);
    case absl::StatusCode::kDeadlineExceeded:
      return rocksdb::Status::TimedOut(message);
    default:  // kAborted, kCancelled, kInternal, kUnknown, ...
      return rocksdb::Status::Aborted(message);
  }
}

// "rockpool.max_idle_per_key" -> "max_idle_per_key".
inline std::string_view BareOptionName(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// The OptionTypeInfo of one RockpoolOptions field (the address RocksDB
// passes is the RockpoolOptions itself: offsets are unused).
inline rocksdb::OptionTypeInfo RockpoolOptionTypeInfo() {
  using rocksdb::ConfigOptions;
  return rocksdb::OptionTypeInfo(
      0, rocksdb::OptionType::kUnknown, rocksdb::OptionVerificationType::kNormal,
      rocksdb::OptionTypeFlags::kNone,
      [](const ConfigOptions&, const std::string& name, const std::string& value, void* addr) {
        return ToRocksStatus(
            SetRockpoolOption(BareOptionName(name), value, static_cast<RockpoolOptions*>(addr)));
      },
      [](const ConfigOptions&, const std::string& name, const void* addr, std::string* value) {
        absl::StatusOr<std::string> v =
            GetRockpoolOption(BareOptionName(name), *static_cast<const RockpoolOptions*>(addr));
        if (!v.ok()) return ToRocksStatus(v.status());
        *value = *std::move(v);
        return rocksdb::Status::OK();
      },
      [](const ConfigOptions&, const std::string& name, const void* a, const void* b,
         std::string* mismatch) {
        const std::string_view bare = BareOptionName(name);
        absl::StatusOr<std::string> va =
            GetRockpoolOption(bare, *static_cast<const RockpoolOptions*>(a));
        absl::StatusOr<std::string> vb =
            GetRockpoolOption(bare, *static_cast<const RockpoolOptions*>(b));
        const bool equal = va.ok() && vb.ok() && *va == *vb;
        if (!equal) *mismatch = name;
        return equal;
      });
}

// Every RockpoolOptions name -> its OptionTypeInfo, for
// Configurable::RegisterOptions. Built once, never freed.
inline const std::unordered_map<std::string, rocksdb::OptionTypeInfo>& RockpoolOptionTypeMap() {
  static const auto* const map = [] {
    auto* m = new std::unordered_map<std::string, rocksdb::OptionTypeInfo>();
    for (const std::string& name : RockpoolOptionNames())
      m->emplace(name, RockpoolOptionTypeInfo());
    return m;
  }();
  return *map;
}

// True if `name` (prefixed or not) is a RockpoolOptions name.
inline bool IsRockpoolOptionName(std::string_view name) {
  const std::string_view bare = BareOptionName(name);
  for (const std::string& known : RockpoolOptionNames()) {
    if (known == bare) return true;
  }
  return false;
}

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_OPTION_GLUE_H_
