// Whether the RocksDB running in a process is the build a rockpool object
// was compiled against, for both faces: librockpool_preload.so refuses to
// serve another RocksDB (legacy/refusal.h) and librockpool_native.so
// registers nothing in one (native/release_check.h). Each object names its
// build with its own built-for line (built_for.h); both compare it with the
// running library the same way, here.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_RELEASE_CHECK_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_RELEASE_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rockpool {

// The RocksDB a process runs, as this object's references reach it.
struct RunningRocksdb {
  std::string version;     // rocksdb::GetRocksVersionAsString(true)
  std::string build_date;  // its rocksdb_build_date build property; "" if unknown
};

// Reads the running RocksDB through functions whose signatures every
// release since 6.x shares: GetRocksVersionAsString, then, only when that
// is the release of the headers this is compiled with (another release's
// map type may differ), GetRocksBuildProperties. Both resolve through the
// process's global scope: a program's own librocksdb.so comes before the
// one the object names. May throw std::bad_alloc.
RunningRocksdb ReadRunningRocksdb();

// "<object> is built for RocksDB 11.8.1 (librocksdb.so.11.8, built <date>)"
// from the built-for line without its prefix; FailedPrecondition if the
// fields do not parse. May throw std::bad_alloc.
absl::StatusOr<std::string> DescribeBuiltFor(absl::string_view built_for_fields,
                                             absl::string_view object);

// OK when `running` is the build `built_for_fields` names (the built-for
// line without its prefix): the same version and, when the fields record
// one, the same build date. Otherwise FailedPrecondition whose message is
// one sentence naming both, without double quotes:
//   the running RocksDB is 10.9.1 (<where>); <object> is built for RocksDB 11.8.1 (...)
//   the running RocksDB is 11.8.1 built <date> (<where>), another build; <object> is built for ...
// `object` names the object that asks; `where` names the running library
// ("" leaves the parentheses out). May throw std::bad_alloc.
absl::Status CompareRelease(absl::string_view built_for_fields, absl::string_view object,
                            const RunningRocksdb& running, absl::string_view where = "");

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_RELEASE_CHECK_H_
