// Registration at load time for librockpool_native.so, the object a
// program on a shared librocksdb gets preloaded (or dlopen()ed): RocksDB
// loads no plugins itself, so the object's constructor adds the factory to
// ObjectLibrary::Default() of the RocksDB running in the process, after
// checking that it is the release the object was built for
// (release_check.h). On a mismatch nothing is registered and the process
// runs as if the object were not there: RocksDB treats
// compression_manager=rockpool like any id it cannot load (by default it
// ignores it and the built-in manager serves). The
// outcome is one line, on stderr with ROCKPOOL_VERBOSE=1 and always in the
// ROCKPOOL_NATIVE_STATS file:
//   rockpool[<pid>]: native face registered: compression_manager=rockpool, RocksDB 11.8.1
//   rockpool[<pid>]: native face not registered: the running RocksDB is ...
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/native/log_report.h"
#include "rocksdb_plugin/native/release_check.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"
#include "rocksdb_plugin/verbose.h"

namespace rockpool::native {
namespace {

void RegisterIfRunningReleaseMatches() noexcept {
  try {
    const std::string refusal = CheckRunningRelease();
    std::string outcome;
    if (refusal.empty()) {
      RegisterRockpoolCompressionManager();
      outcome = absl::StrCat("native face registered: compression_manager=rockpool, RocksDB ",
                             rocksdb::GetRocksVersionAsString(true));
    } else {
      outcome = absl::StrCat("native face not registered: ", refusal);
    }
    SayVerbose(outcome);
    AppendNativeStatsLine(absl::StrCat("rockpool[", getpid(), "]: ", outcome));
  } catch (...) {
    // Out of memory at load: no registration, no line.
  }
}

const bool registered = (RegisterIfRunningReleaseMatches(), true);

}  // namespace
}  // namespace rockpool::native
