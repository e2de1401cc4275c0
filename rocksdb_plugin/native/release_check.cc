#include "rocksdb_plugin/native/release_check.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/built_for.h"
#include "rocksdb_plugin/built_for_line.h"

namespace rockpool::native {
namespace {

// Read back by `rockpool run` from the object's file; used here too, which
// also keeps it in the object.
constexpr char kBuiltFor[] = "rockpool_native_built_for: " ROCKPOOL_BUILT_FOR_FIELDS;

}  // namespace

absl::string_view NativeBuiltForLine() noexcept { return kBuiltFor; }

std::string CompareRelease(absl::string_view running_version, absl::string_view running_date) {
  absl::string_view fields(kBuiltFor);
  fields.remove_prefix(kNativeBuiltForPrefix.size());
  const std::optional<RocksdbBuild> want = ParseBuiltFor(fields);
  if (!want.has_value()) return "this object does not say which RocksDB it is built for";
  const std::string built_for =
      absl::StrCat("librockpool_native.so is built for ", want->ToString());
  if (running_version != want->version) {
    return absl::StrCat("the running RocksDB is ", running_version, "; ", built_for);
  }
  if (!want->build_date.empty() && running_date != want->build_date) {
    return absl::StrCat("the running RocksDB is ", running_version, " built ",
                        running_date.empty() ? absl::string_view("<unknown>") : running_date, ", another build; ",
                        built_for);
  }
  return "";
}

std::string CheckRunningRelease() noexcept {
  try {
    const std::string version = rocksdb::GetRocksVersionAsString(true);
    std::string date;
    // Only the same release is known to return this map type.
    if (version == ROCKPOOL_ROCKSDB_VERSION) {
      const auto& properties = rocksdb::GetRocksBuildProperties();
      const auto it = properties.find("rocksdb_build_date");
      if (it != properties.end()) date = it->second;
    }
    return CompareRelease(version, date);
  } catch (...) {
    return "the running RocksDB's version could not be read";
  }
}

}  // namespace rockpool::native
