// RocksDB's entry point for the rockpool plugin (rockpool.mk: rockpool_FUNC).
// A RocksDB built with ROCKSDB_PLUGINS=rockpool declares this function in
// its build_version.cc and calls it, with the ObjectLibrary it creates for
// the plugin, when ObjectRegistry::Default() is first built; from then on
// compression_manager=rockpool works in every options string and OPTIONS
// file of every binary of that build.
#include <string>

#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"

extern "C" int RegisterRockpoolPlugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                      const std::string& arg);

extern "C" int RegisterRockpoolPlugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                      const std::string& /*arg*/) {
  return rockpool::native::RegisterRockpoolFactories(library);
}
