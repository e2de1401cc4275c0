// Whether rockpool may serve the process it was loaded into at all.
//
// librockpool_interpose.so carries no RocksDB and serves any process. Code
// built against a shared librocksdb (librockpool_preload.so, and programs
// that link //rocksdb_plugin:legacy with Debian's librocksdb.so) also
// interposes rocksdb::SanitizeOptions and registers a listener, both with
// the class layouts of the RocksDB it was compiled against: in a process
// whose running RocksDB is another release or another build, that would
// crash it. There rockpool refuses to serve:
//   - every interposed zstd/zlib call forwards unchanged (pooling stays off:
//     ROCKPOOL_OPTIONS, listeners and Configure() change nothing);
//   - no `rockpool` listener is registered, and the DB::Open hook only
//     forwards (it touches none of the RocksDB's objects);
//   - the reason is written to the ROCKPOOL_STATS file (` refused="..."`)
//     and, with ROCKPOOL_VERBOSE=1, said once on stderr:
//       rockpool[<pid>]: not serving this process: the running RocksDB is ...
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REFUSAL_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REFUSAL_H_

#include "absl/status/status.h"

namespace rockpool::legacy {

// OK when rockpool may serve this process; else FailedPrecondition whose
// message is one sentence naming the running RocksDB and the one rockpool
// was built for (no double quotes). Out of memory at the first call: an
// error without a message. Decided at the first call (at load) and fixed
// for the process. Never throws.
const absl::Status& Refusal() noexcept;

// The check behind Refusal(): OK, or why not. Objects that link a shared
// librocksdb define it (release_check.cc); everywhere else a weak default
// refuses nothing. May throw std::bad_alloc.
absl::Status CheckRunningRocksdb();

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_REFUSAL_H_
