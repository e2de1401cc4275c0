// libother_build.so: preloaded before librockpool_native.so, it makes the
// process's RocksDB report the release the object was built for but another
// build (rocksdb::GetRocksBuildProperties says another rocksdb_build_date),
// as the same release rebuilt with other options would. Everything else is
// the real install's, as with libother_release.so.
#include <string>
#include <unordered_map>

#include "rocksdb/version.h"

namespace rocksdb {

const std::unordered_map<std::string, std::string>& GetRocksBuildProperties() {
  static const auto* const properties = new std::unordered_map<std::string, std::string>{
      {"rocksdb_build_date", "2001-01-01 00:00:00"}};
  return *properties;
}

}  // namespace rocksdb
