// What the parent asks a child run to do (Job) and what the child reports
// back (RunResult), as small JSON files in the scratch directory (one object
// each, written and read with tools/json; every member is required).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_JOB_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_JOB_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::replay {

enum class Strategy { kStock, kPooled };
const char* StrategyName(Strategy s);  // "stock" / "pooled"

// How blocks of one file are compressed: RocksDB's CompressionType byte
// (2 = zlib, 7 = zstd) and CompressionOptions.
struct CodecSettings {
  uint8_t type = 0;
  int level = 32767;  // RocksDB's kDefaultCompressionLevel
  int window_bits = -14;
  int strategy = 0;
  uint32_t max_dict_bytes = 0;
  // CompressionOptions::parallel_threads: SST files do not record it; it
  // comes from the DB's OPTIONS file (the file's column family), else 1.
  uint32_t parallel_threads = 1;
};

// blocks mode: one input file and how to recompress its data blocks.
struct BlocksFile {
  std::string path;
  CodecSettings codec;
  bool use_dictionary = false;  // the file's own dictionary, if it has one
};

// compaction mode: files ingested into one column family of the scratch DB
// and compacted with `codec`.
struct CompactionGroup {
  std::string name;  // column family name, e.g. "zstd"
  CodecSettings codec;
  uint32_t format_version = 5;
  uint8_t checksum = 1;  // rocksdb::ChecksumType
  uint64_t block_size = 4096;
  std::vector<std::string> files;  // ingestible SSTs, oldest first
};

struct Job {
  std::string mode;  // "blocks" or "compaction"
  Strategy strategy = Strategy::kStock;
  RockpoolOptions::MaxIdlePerKey max_idle_per_key =
      RockpoolOptions::kDefaultMaxIdlePerKey;  // pooled strategy
  bool verify_checksums = true;
  // blocks mode: the stock call pattern (a StockPattern key, stock_patterns.h)
  std::string pattern = "7.8";
  uint64_t block_size = 0;  // > 0: re-block the data to this size
  uint64_t total_blocks = 0;
  uint64_t total_stored_bytes = 0;
  std::vector<BlocksFile> files;
  // blocks mode: blob files, replayed after the SSTs (use_dictionary unused);
  // their framed file indexes follow the SSTs'
  std::vector<BlocksFile> blobs;
  // blocks: the framed output file; compaction: the scratch DB directory
  std::string output;
  // compaction mode
  std::vector<CompactionGroup> groups;
  // --allocator: the name the child checks its malloc against, and the
  // object the parent preloads into it (empty: nothing preloaded)
  std::string allocator = "glibc";
  std::string allocator_preload;
  // compaction mode, a DB with blob files: copied whole to `output` (outside
  // the measured window) and compacted there, rewriting its blobs; `groups`
  // is then empty
  std::string source_db;
};

// Parse*: Internal naming the first bad member for anything Serialize* would
// not write (only the tool's own processes write these files).
std::string SerializeJob(const Job& job);
absl::StatusOr<Job> ParseJob(std::string_view text);

struct SeriesPoint {
  double x = 0;               // blocks: uncompressed MiB replayed; compaction: seconds
  int64_t process_bytes = 0;  // malloc bytes since the window opened
  int64_t codec_bytes = 0;    // codec-library bytes since the window opened
};

struct RunResult {
  std::map<std::string, int64_t> metrics;
  std::vector<SeriesPoint> series;
  // compaction: (column family, output SST path), in key order per family;
  // blob files as ("blob:<column family>", path), in file number order
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::string> notes;
  // Text facts, one line each: which allocator served the child
  // (child_support.h's AddAllocatorFacts).
  std::map<std::string, std::string> facts;
  // Set on failure: 2 bad input, 3 internal error.
  int error_code = 0;
  std::string error;
};

std::string SerializeResult(const RunResult& result);
absl::StatusOr<RunResult> ParseResult(std::string_view text);

// The whole file at `path`, which must be a regular file of at most
// kMaxTextFileBytes (tools/sst/byte_source.h). (The files are written with
// rocksdb_plugin/own_file.h's ReplaceOwnFile: never through a link, 0600.)
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{64} << 20;
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_JOB_H_
