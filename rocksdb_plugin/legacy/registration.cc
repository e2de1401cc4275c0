// Registers the `rockpool` EventListener with RocksDB's default ObjectLibrary
// when rockpool is loaded: at program start for a Bazel program depending on
// //rocksdb_plugin:legacy (alwayslink), at load time for
// librockpool_preload.so. librocksdb.so is initialised before this object
// (it is a dependency), so ObjectLibrary::Default() is ready.
#include <cstdio>
#include <mutex>

#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_plugin/legacy/listener.h"
#include "rocksdb_plugin/legacy/refusal.h"

namespace rockpool::legacy {
namespace {

struct Registrar {
  Registrar() noexcept {
    static std::once_flag once;
    try {
      // In a process running another RocksDB its ObjectLibrary has another
      // layout (refusal.h): register nothing.
      if (!Refusal().ok()) return;
      std::call_once(once, [] { RegisterRockpool(*rocksdb::ObjectLibrary::Default(), ""); });
    } catch (...) {
      std::fputs("rockpool: could not register the rockpool EventListener\n", stderr);
    }
  }
};

const Registrar registrar;

}  // namespace
}  // namespace rockpool::legacy
