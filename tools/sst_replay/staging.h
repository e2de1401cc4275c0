// Staging for compaction mode. RocksDB 7.8.3 ingests only files written by
// SstFileWriter ("External file version not found" otherwise), so SSTs a DB
// wrote (flushes, compactions) are rewritten first, with rockpool's reader:
// each user key's newest entry (a put or a deletion) goes through
// rocksdb::SstFileWriter with the group's codec, options and format. Merge
// operands and blob references are left out (and counted). The input file is
// only read.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_STAGING_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_STAGING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "rocksdb/options.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

struct StagedFile {
  uint64_t skipped_entries = 0;  // merge operands, blob references, ...
  bool empty = false;            // nothing to write: no file was created
};

// The column family options a group is staged and compacted with (staging
// writes what compaction mode then ingests): its codec and options, block
// size, format_version and checksum; no automatic compactions.
rocksdb::ColumnFamilyOptions CompactionFamilyOptions(const CompactionGroup& group);

absl::StatusOr<StagedFile> StageForIngestion(const std::string& input,
                                             const sst::SstReadOptions& read_options,
                                             const CompactionGroup& group,
                                             const std::string& output);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_STAGING_H_
