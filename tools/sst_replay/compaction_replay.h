// compaction mode, inside one child process: a scratch DB of the RocksDB
// sst_replay is built with, the job's SSTs ingested as copies (or, with
// job.source_db, a DB with blob files copied whole and opened with its own
// OPTIONS), then a full manual compaction per column family inside the
// measured window (README.md beside this file, "Modes"; what stock and
// pooled switch on: compaction_faces.h). The outputs stay in the scratch DB
// for the parent to compare.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_

#include "absl/status/status.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

absl::Status RunCompactionReplay(const Job& job, RunResult* result, ProgressSink* progress);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_
