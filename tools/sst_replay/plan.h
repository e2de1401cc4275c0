// What sst_replay will run, decided from the inputs and the settings alone:
// pure functions (no I/O, no child processes), unit-tested in
// tests/tools/sst_replay/plan_test.cc. The session (session.h), whose pure
// part this is, turns a plan into jobs, stages what must be staged and runs
// them (child_runs.h).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_PLAN_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {

// The settings that shape the replay (command_line.h reads them from flags).
struct ReplaySettings {
  bool blocks = true;
  bool compaction = true;
  std::optional<uint8_t> codec;  // --codec: recompress with this type
  std::optional<int> level;      // --level
  uint64_t block_size = 0;
  int repeat = 5;
  RockpoolOptions::MaxIdlePerKey max_idle_per_key = RockpoolOptions::kDefaultMaxIdlePerKey;
  bool verify_checksums = true;
};

// What one input is recompressed with, or why it is skipped.
struct Target {
  std::optional<CodecSettings> codec;
  bool use_dictionary = false;
  std::string skip_reason;  // "skipped: ..." when !codec
};
Target TargetFor(const InputFile& in, const ReplaySettings& settings);

// Run k (0 or 1) of repetition `rep`: which strategy goes first alternates,
// and the very first run is stock (the reference every other run is
// compared with).
Strategy StrategyAt(int rep, int k);

// What a mode made of each input.
struct InputVerdicts {
  std::vector<std::string> input_status;  // per input: the mode's word, or the skip reason
  std::vector<std::string> notes;         // "<path>: skipped: ...", snappy files in one
  int skipped = 0;
  int snappy_files = 0;
};

// input_status: "replayed" or the skip reason, SSTs first, then blob files.
struct BlocksPlan : InputVerdicts {
  Job job;                                    // mode, options and files; no strategy/output yet
  std::vector<std::string> file_names;        // framed file index -> input path (SSTs, then blobs)
  std::map<std::string, int> per_codec;       // codec name -> SST files replayed
  std::map<std::string, int> blob_per_codec;  // codec name -> blob files replayed
  uint64_t blob_records = 0;
  bool parallel = false;  // some replayed SSTs' column families set parallel_threads > 1
};
BlocksPlan PlanBlocks(const std::vector<InputFile>& inputs, const std::vector<BlobInput>& blobs,
                      const ReplaySettings& settings);

// The notes blocks mode prints on what stock created under `pattern` for the
// plan's SSTs, blob files and LZ4 inputs.
std::vector<std::string> StockNotes(const StockPattern& pattern, const BlocksPlan& plan);

// compaction mode on a DB with blob files (blob_inputs.h's
// BlobDbDirectories): the first such DB is copied whole and compacted;
// `paths` (every input, SSTs and blob files) inside it are "copied with the
// DB", every other input is skipped (its blob references, or the DB's,
// would be lost by ingestion). input_status: "" or the skip reason.
struct DbCopyPlan : InputVerdicts {
  std::string db;
};
DbCopyPlan PlanDbCopy(const std::vector<std::string>& paths,
                      const std::vector<std::string>& blob_dbs);

// Why a snappy file (or blob file) is not replayed: snappy keeps no context.
inline constexpr char kSnappySkipReason[] =
    "skipped: snappy (no context to pool: snappy's API takes none)";

// Why compaction mode skips a blob file given without its DB.
inline constexpr char kLoneBlobSkipReason[] =
    "skipped: a blob file is compacted with its DB (pass the DB directory)";

// compaction mode: one column family per target codec.
struct PlannedGroup {
  CompactionGroup group;       // name, codec and table options; files still empty
  std::vector<size_t> inputs;  // indexes into the inputs, oldest first
};
// input_status: "" (planned) or the skip reason.
struct CompactionPlan : InputVerdicts {
  std::vector<PlannedGroup> groups;  // by codec type
};
CompactionPlan PlanCompaction(const std::vector<InputFile>& inputs, const ReplaySettings& settings);

// Can this file go into the scratch DB as it is (IngestExternalFile)? Else
// it is rewritten with SstFileWriter first (files a DB wrote: RocksDB 7.8.3
// ingests only SstFileWriter files; format_version above 5 it cannot write).
bool IngestibleAsIs(const InputFile& in);

// Each mode's one-line description in the report, from its plan and its
// first stock run's metrics:
//   blocks      "11 SST files (4 zlib, 7 zstd), 6.76k data blocks, 3 blob
//               files (...), 2.73k blobs, 32.2 MiB uncompressed -> 9.05 MiB
//               (3.56x)" and the flags that changed the codec
//   compaction  "2 column families (zstd: 4 files, ...), full compaction ->
//               3 SSTs, <sizes>"
//   DB copy     "DB with blob files /db (...), full compaction with blob GC
//               -> ..."
std::string BlocksDescription(const BlocksPlan& plan, const RunResult& first,
                              const ReplaySettings& replay);
std::string CompactionDescription(const std::vector<std::string>& group_text, int staged,
                                  int skipped, const RunResult& first);
std::string DbCopyDescription(const DbCopyPlan& plan, int ssts, int blob_files,
                              const RunResult& first);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_PLAN_H_
