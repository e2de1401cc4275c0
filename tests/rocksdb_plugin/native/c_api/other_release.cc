// libother_release.so: preloaded before librockpool_native.so, it makes the
// process's RocksDB answer rocksdb::GetRocksVersionAsString with another
// release (10.9.1), the way a program linking another librocksdb.so puts
// that library's definition first in the global scope. Everything else is
// the real install's, so the test sees what the object does on a mismatch
// without a second RocksDB build.
#include <string>

namespace rocksdb {

std::string GetRocksVersionAsString(bool with_patch) { return with_patch ? "10.9.1" : "10.9"; }

}  // namespace rocksdb
