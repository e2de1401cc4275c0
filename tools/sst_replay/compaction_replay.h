// compaction mode, inside one child process: opens a scratch DB of the
// RocksDB sst_replay is built with (Debian's 7.8.3, or an upstream install)
// with one column family per codec group, ingests copies of the job's SSTs
// (IngestExternalFile, move_files = false), then runs one full manual
// compaction per column family inside the measured window. What stock and
// pooled switch on in that RocksDB, and how their codec bytes are counted
// (the same way for both), is compaction_faces.h.
//
// With job.source_db (a DB with blob files) the DB is instead copied whole
// into job.output (before the window opens), opened with its own OPTIONS
// file plus BlobRewriteOptions, and every column family is compacted: the
// compaction relocates every blob (garbage collection with age cutoff 1.0),
// so RocksDB writes each blob again through BlobFileBuilder (7.8.3: a
// compression context per blob; 11.x: one per builder).
//
// The output SSTs and blob files are left in the scratch DB for the parent
// to compare.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_

#include <string>

#include "absl/status/status.h"
#include "rocksdb/options.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

absl::Status RunCompactionReplay(const Job& job, RunResult* result, ProgressSink* progress);

// The RocksDB compaction mode runs: the one this binary is linked with
// (rocksdb/version.h), e.g. "7.8.3" (Debian's librocksdb).
std::string CompactionRocksDbVersion();

// The column family options a group is compacted (and staged) with: its
// codec and options, block size, format_version and checksum; no automatic
// compactions.
rocksdb::ColumnFamilyOptions CompactionFamilyOptions(const CompactionGroup& group);

// A copied DB's family options for the measured compaction: no automatic
// compactions; with blob files, enable_blob_garbage_collection and
// blob_garbage_collection_age_cutoff = 1.0 (every blob is rewritten).
void BlobRewriteOptions(rocksdb::ColumnFamilyOptions* cf);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_REPLAY_H_
