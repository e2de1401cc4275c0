#include "rocksdb_plugin/release_check.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/built_for.h"
#include "rocksdb_plugin/built_for_line.h"

namespace rockpool {

RunningRocksdb ReadRunningRocksdb() {
  RunningRocksdb running;
  running.version = rocksdb::GetRocksVersionAsString(true);
  if (running.version == ROCKPOOL_ROCKSDB_VERSION) {
    const auto& properties = rocksdb::GetRocksBuildProperties();
    const auto date = properties.find("rocksdb_build_date");
    if (date != properties.end()) running.build_date = date->second;
  }
  return running;
}

absl::StatusOr<std::string> DescribeBuiltFor(absl::string_view built_for_fields,
                                             absl::string_view object) {
  const std::optional<RocksdbBuild> build = ParseBuiltFor(built_for_fields);
  if (!build.has_value()) {
    return absl::FailedPreconditionError("this object does not say which RocksDB it is built for");
  }
  return absl::StrCat(object, " is built for ", build->ToString());
}

absl::Status CompareRelease(absl::string_view built_for_fields, absl::string_view object,
                            const RunningRocksdb& running, absl::string_view where) {
  const std::optional<RocksdbBuild> want = ParseBuiltFor(built_for_fields);
  const absl::StatusOr<std::string> built_for = DescribeBuiltFor(built_for_fields, object);
  if (!want.has_value() || !built_for.ok()) return built_for.status();
  const std::string in_where = where.empty() ? "" : absl::StrCat(" (", where, ")");
  if (running.version != want->version) {
    return absl::FailedPreconditionError(
        absl::StrCat("the running RocksDB is ", running.version, in_where, "; ", *built_for));
  }
  if (!want->build_date.empty() && running.build_date != want->build_date) {
    const absl::string_view date =
        running.build_date.empty() ? absl::string_view("<unknown>") : running.build_date;
    return absl::FailedPreconditionError(absl::StrCat("the running RocksDB is ", running.version,
                                                      " built ", date, in_where,
                                                      ", another build; ", *built_for));
  }
  return absl::OkStatus();
}

}  // namespace rockpool
