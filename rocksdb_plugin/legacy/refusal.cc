#include "rocksdb_plugin/legacy/refusal.h"

#include <algorithm>
#include <new>

#include "absl/base/attributes.h"

namespace rockpool::legacy {

// The interposer's definition: it has no RocksDB to be wrong about. A strong
// definition in the same link (release_check.cc) replaces it; being weak,
// the compiler never inlines it into Refusal().
ABSL_ATTRIBUTE_WEAK std::string CheckRunningRocksdb() { return ""; }

const std::string& Refusal() noexcept {
  static const std::string* const refusal = [] {
    std::string why;
    try {
      why = CheckRunningRocksdb();
    } catch (...) {
      why = "could not check which RocksDB this process runs";
    }
    // The stats file quotes it.
    std::replace(why.begin(), why.end(), '"', '\'');
    return new (std::nothrow) std::string(std::move(why));
  }();
  // Short enough for the small-string buffer: constructing it cannot throw.
  static const std::string kNoMemory = "out of memory";
  return refusal != nullptr ? *refusal : kNoMemory;
}

}  // namespace rockpool::legacy
