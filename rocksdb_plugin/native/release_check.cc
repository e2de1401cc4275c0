#include "rocksdb_plugin/native/release_check.h"

#include <string>

#include "absl/status/status.h"
#include "rocksdb_plugin/built_for.h"
#include "rocksdb_plugin/built_for_line.h"
#include "rocksdb_plugin/release_check.h"

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
  const absl::Status match = rockpool::CompareRelease(
      fields, "librockpool_native.so",
      RunningRocksdb{std::string(running_version), std::string(running_date)});
  return match.ok() ? "" : std::string(match.message());
}

std::string CheckRunningRelease() noexcept {
  try {
    const RunningRocksdb running = ReadRunningRocksdb();
    return CompareRelease(running.version, running.build_date);
  } catch (...) {
    return "the running RocksDB's version could not be read";
  }
}

}  // namespace rockpool::native
