// A stand-in for a RocksDB other than the one librockpool_preload.so is
// built for: a library named like RocksDB (librocksdb.so.9, or a
// librocksdb.so.7.8 of another build) that defines the functions the
// preload object's checks look at, with RocksDB's own signatures (so the
// same mangled names):
//   rocksdb::GetRocksVersionAsString   STUB_VERSION
//   rocksdb::SanitizeOptions           what DB::Open runs; returns a
//                                      DBOptions of the stub's own layout
// and the "rocksdb_build_date:" build-property string a real librocksdb
// carries (util/build_version.cc), with another date.
#include <string>

namespace rocksdb {

// Not RocksDB's layout, on purpose. Not trivially copyable, like RocksDB's
// DBOptions, so it is returned through memory the caller provides.
struct DBOptions {
  std::string marker;
};
class Status;

std::string GetRocksVersionAsString(bool with_patch) {
  const std::string version = STUB_VERSION;
  return with_patch ? version : version.substr(0, version.rfind('.'));
}

DBOptions SanitizeOptions(const std::string& dbname, const DBOptions& src, bool /*read_only*/,
                          Status* /*logger_creation_s*/) {
  return DBOptions{"sanitized by the stub: " + dbname + src.marker};
}

}  // namespace rocksdb

// Kept in the file, where `rockpool check` reads it.
extern "C" __attribute__((used)) const char rockpool_stub_build_date[] =
    "rocksdb_build_date:2000-01-01 00:00:00";
