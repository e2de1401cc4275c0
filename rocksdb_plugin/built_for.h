// Which RocksDB build a rockpool object is built for, and how a file says
// so. librockpool_preload.so interposes rocksdb::SanitizeOptions and
// registers a listener with the class layouts of the RocksDB it was compiled
// against; librockpool_native.so implements RocksDB's experimental
// CompressionManager API, whose signatures change between minor releases.
// In a process running any other RocksDB either would crash. So each
// object carries one line naming its RocksDB, after a prefix naming the
// object,
//
//   rockpool_preload_built_for: version=7.8.3 soname=librocksdb.so.7.8
//       build_date=2023-01-07 12:33:41
//   rockpool_native_built_for: version=11.8.1 soname=librocksdb.so.11.8
//       build_date=...
//
// (one line in the file, NUL-terminated; built_for_line.h writes it), which
// `rockpool run` reads from the object's file (tools/rockpool/object_choice.h)
// and the object checks against the RocksDB running in its process
// (release_check.h, shared by legacy/release_check.cc and
// native/release_check.cc). `build_date` is RocksDB's own
// `rocksdb_build_date` build property (util/build_version.cc), compiled into
// every librocksdb as the plain string "rocksdb_build_date:<date>": the
// version alone cannot tell Debian's build from another build of 7.8.3.
// No RocksDB header here: the rockpool command uses it too.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace rockpool {

struct RocksdbBuild {
  std::string version;     // "7.8.3"
  std::string soname;      // "librocksdb.so.7.8"
  std::string build_date;  // the rocksdb_build_date property, "" if unknown

  // "RocksDB 7.8.3 (librocksdb.so.7.8, built 2023-01-07 12:33:41)"
  std::string ToString() const;
  bool operator==(const RocksdbBuild& o) const {
    return version == o.version && soname == o.soname && build_date == o.build_date;
  }
};

inline constexpr absl::string_view kBuiltForPrefix = "rockpool_preload_built_for: ";
inline constexpr absl::string_view kNativeBuiltForPrefix = "rockpool_native_built_for: ";
inline constexpr absl::string_view kBuildDateProperty = "rocksdb_build_date:";

// The line without its prefix: "version=... soname=... build_date=...".
// build_date comes last (it holds a space) and may be empty.
std::string FormatBuiltFor(const RocksdbBuild& build);
std::optional<RocksdbBuild> ParseBuiltFor(absl::string_view fields);

// The first line starting with `prefix` in a file's bytes (an object file:
// the line ends at a NUL) that parses; nullopt if none.
std::optional<RocksdbBuild> FindBuiltFor(absl::string_view file_bytes,
                                         absl::string_view prefix = kBuiltForPrefix);

// The date after the first "rocksdb_build_date:" in a librocksdb file's
// bytes (up to the NUL); nullopt if the file has none.
std::optional<std::string> FindBuildDate(absl::string_view file_bytes);

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_H_
