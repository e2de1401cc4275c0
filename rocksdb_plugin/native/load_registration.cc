// Registration at load time for programs that link //rocksdb_plugin/native
// (alwayslink): compression_manager=rockpool resolves through
// ObjectLibrary::Default(). Not part of the RocksDB plugin build, where
// RocksDB calls RegisterRockpoolPlugin (rockpool/rockpool_plugin.cc) itself.
#include "rocksdb_plugin/native/rockpool_compression_manager.h"

namespace rockpool::native {
namespace {
const bool registered = (RegisterRockpoolCompressionManager(), true);
}  // namespace
}  // namespace rockpool::native
