// Whether librockpool_native.so may register compression_manager=rockpool
// in the process it was loaded into.
//
// The object implements RocksDB's CompressionManager, an experimental API
// whose signatures change between minor releases (CompressBlock in 10.6,
// Clone in 10.9, DictConfigArgs in 11.0), against the headers of one
// RocksDB build. RocksDB calls it through virtual functions laid out as in
// that build; in a process running another release they would be called
// with other arguments. So the object registers only when the RocksDB
// running in the process is the release it was compiled for, and (when the
// object records one) the same build: the `rocksdb_build_date` build
// property of the library it linked (built_for.h).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_RELEASE_CHECK_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_RELEASE_CHECK_H_

#include <string>
#include "absl/strings/string_view.h"

namespace rockpool::native {

// The object's built-for line, "rockpool_native_built_for: version=..."
// (built_for.h), as compiled into it.
absl::string_view NativeBuiltForLine() noexcept;

// "" when the running RocksDB matches, else one sentence naming the running
// RocksDB and the one the object was built for (no double quotes).
// `running_version` is rocksdb::GetRocksVersionAsString(true) of the running
// library; `running_date` its rocksdb_build_date ("" if unknown). Pure: the
// tests give it any pair.
std::string CompareRelease(absl::string_view running_version, absl::string_view running_date);

// CompareRelease with the running library's figures, read as
// ReadRunningRocksdb (rocksdb_plugin/release_check.h) reads them. Never
// throws.
std::string CheckRunningRelease() noexcept;

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_RELEASE_CHECK_H_
