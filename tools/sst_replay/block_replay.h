// blocks mode, inside one child process: every data block of the job's SST
// files and every blob of its blob files recompressed under one strategy
// with the job's stock call pattern (stock_patterns.h; behaviour: README.md
// beside this file, "Modes"). Every compressed block and blob goes, framed,
// to job.output (compare.h) for the parent's byte-for-byte check; with
// job.block_size > 0 the data is re-blocked first (DataBlockBuilder) and a
// block's source offset is that of the source block it started in.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_

#include "absl/status/status.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// Fills result->metrics (its counts add to any already there: pass a fresh
// result) and result->series. Reader errors (bad input) keep their codes;
// codec failures are Internal.
absl::Status RunBlocksReplay(const Job& job, RunResult* result, ProgressSink* progress);

// RocksDB's GoodCompressionRatio: a compressed block is kept only if it
// saves at least 1/8 of the raw size.
inline bool GoodCompressionRatio(size_t compressed, size_t raw) {
  return compressed < raw - raw / 8;
}

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_
