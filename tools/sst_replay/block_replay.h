// blocks mode, inside one child process: reads every data block of the job's
// files (checksums verified), decompresses it and recompresses it with
// the job's stock call pattern (stock_patterns.h; 7.8.3's below) under one
// strategy:
//
//   stock   every context is created for its use and freed after it, as
//           RocksDB does: a zstd CCtx per SST file, a deflate stream per
//           block (deflateInit2/deflateEnd), an inflate stream per block
//           read; zstd decompression uses one long-lived DCtx (RocksDB's
//           per-core cache, one core here). Same counting allocator as
//           pooled: the pools are built with max_retained_per_key = 0.
//   pooled  the same calls served from rockpool's bounded pools.
//
// Then every blob of the job's blob files, with BlobDB's pattern: stock
// creates a compression context per blob written (a ZSTD_CCtx, or a deflate
// stream), an inflate stream per zlib blob read and reuses the zstd DCtx;
// each compressed blob is decompressed again and checked against the value.
//
// Every compressed block (and blob) is written, framed, to job.output so the parent can
// compare the two strategies byte for byte:
//   fixed32 file index | fixed64 source block offset | fixed32 size | bytes
// (little endian; blobs: file index after the SSTs', offset of the blob
// record). With job.block_size > 0 the data is re-blocked first
// (DataBlockBuilder); the source offset is then that of the source block
// the new block started in.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_

#include "absl/status/status.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// Fills result->metrics and result->series. Reader errors (bad input) keep
// their codes; codec failures are Internal.
absl::Status RunBlocksReplay(const Job& job, RunResult* result, ProgressSink* progress);

// RocksDB's GoodCompressionRatio: a compressed block is kept only if it
// saves at least 1/8 of the raw size.
inline bool GoodCompressionRatio(size_t compressed, size_t raw) {
  return compressed < raw - raw / 8;
}

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_BLOCK_REPLAY_H_
