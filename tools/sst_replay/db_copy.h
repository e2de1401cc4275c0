// A private copy of a RocksDB DB directory for compaction mode on a DB with
// blob files: its SSTs hold blob references that ingestion would drop, so
// the whole DB (MANIFEST, OPTIONS, WAL, SSTs, blob files) is copied and the
// copy compacted. The source is only read.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_DB_COPY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_DB_COPY_H_

#include <string>

#include "absl/status/status.h"

namespace rockpool::replay {

// Copies every regular file of `source` but LOCK (a running DB's) and its
// LOG files into `target`, which is created and must not exist. Errors name
// the file (offset 0).
absl::Status CopyDbDirectory(const std::string& source, const std::string& target);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_DB_COPY_H_
