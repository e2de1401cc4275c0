// The built-for line (built_for.h) of an object compiled against a RocksDB:
// its fields from the RocksDB headers' version and the build identity of the
// library the object links (@rocksdb//:build_identity). Each object puts
// its own prefix in front:
//
//   constexpr char kBuiltFor[] =
//       "rockpool_native_built_for: " ROCKPOOL_BUILT_FOR_FIELDS;
//
// Macros, not functions: the line must be one string literal in the
// object's file, where `rockpool run` finds it without loading the object.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_LINE_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_LINE_H_

#include "build_identity.h"
#include "rocksdb/version.h"

#define ROCKPOOL_STR2(x) #x
#define ROCKPOOL_STR(x) ROCKPOOL_STR2(x)
// "11.8.1", what rocksdb::GetRocksVersionAsString(true) says.
#define ROCKPOOL_ROCKSDB_VERSION \
  ROCKPOOL_STR(ROCKSDB_MAJOR) "." ROCKPOOL_STR(ROCKSDB_MINOR) "." ROCKPOOL_STR(ROCKSDB_PATCH)
// "librocksdb.so.11.8", the soname RocksDB's make and CMake builds give it.
#define ROCKPOOL_ROCKSDB_SONAME \
  "librocksdb.so." ROCKPOOL_STR(ROCKSDB_MAJOR) "." ROCKPOOL_STR(ROCKSDB_MINOR)
#define ROCKPOOL_BUILT_FOR_FIELDS                                        \
  "version=" ROCKPOOL_ROCKSDB_VERSION " soname=" ROCKPOOL_ROCKSDB_SONAME \
  " build_date=" ROCKPOOL_ROCKSDB_BUILD_DATE

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_BUILT_FOR_LINE_H_
