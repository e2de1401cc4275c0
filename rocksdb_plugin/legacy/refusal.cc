#include "rocksdb_plugin/legacy/refusal.h"

#include <algorithm>
#include <new>
#include <string>

#include "absl/base/attributes.h"

namespace rockpool::legacy {

// The interposer's definition: it has no RocksDB to be wrong about. A strong
// definition in the same link (release_check.cc) replaces it; being weak,
// the compiler never inlines it into Refusal().
ABSL_ATTRIBUTE_WEAK absl::Status CheckRunningRocksdb() { return absl::OkStatus(); }

const absl::Status& Refusal() noexcept {
  static const absl::Status* const refusal = []() -> const absl::Status* {
    try {
      absl::Status why = CheckRunningRocksdb();
      if (why.ok()) return new absl::Status();
      // The stats file quotes it.
      std::string message(why.message());
      std::replace(message.begin(), message.end(), '"', '\'');
      return new absl::Status(why.code(), message);
    } catch (...) {
      return new (std::nothrow)
          absl::Status(absl::InternalError("could not check which RocksDB this process runs"));
    }
  }();
  // No message: constructing it allocates nothing, so it cannot throw.
  static const absl::Status kNoMemory(absl::StatusCode::kResourceExhausted, "");
  return refusal != nullptr ? *refusal : kNoMemory;
}

}  // namespace rockpool::legacy
