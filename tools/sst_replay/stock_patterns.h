// What "stock" means in sst_replay: the compression-context call pattern of
// a given RocksDB release, one entry per pattern with what blocks mode
// needs to replay it. The events of each pattern (what stock creates per SST
// file, block, blob, read, and for the events blocks mode does not replay:
// verify_compression, sample_for_compression, the compressed secondary
// cache) are tabled, with the source file and function of each, in README.md
// beside this file ("Stock call patterns").
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_STOCK_PATTERNS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_STOCK_PATTERNS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rockpool::replay {

// How a pattern's table builder obtains zstd data-block contexts when
// compression_opts.parallel_threads > 1 (the README table's
// "parallel_threads" row). 10.4-10.x changed it between minor releases, so
// it is not replayed there and stock is a lower bound.
enum class ParallelModel { kContextPerThread, kDataAreaPlusWorkers, kNotReplayed };

// How a pattern's RocksDB obtains LZ4 and LZ4HC streams (the README table's
// LZ4 rows): a new stream per block and blob (6.x-10.5), or the
// compressors' working areas (10.7+; 10.6 is not replayed).
enum class Lz4Model { kStreamPerBlock, kWorkingAreas };

struct StockPattern {
  const char* key;        // "6.29", "7.8", "8", "10.4", "11": --rocksdb_version values
  const char* versions;   // releases it holds for, e.g. "8.0-10.3"
  const char* read_from;  // the tag its source was read from, e.g. "v9.11.2"
  // zstd SST files: index blocks are compressed with a working area of
  // their own (10.4+: BlockBasedTableBuilder::Rep obtains one for index
  // blocks and one for data blocks), instead of sharing the data blocks'
  // CompressionContext (compression_ctxs[0]).
  bool separate_index_context;
  // zstd blobs: a CompressionContext per blob (true), or one working area
  // per BlobFileBuilder (false, 11.x; blocks mode: one per blob file). The
  // same for LZ4HC blobs (LZ4 blobs: no stream at all then).
  bool zstd_context_per_blob;
  ParallelModel parallel;
  Lz4Model lz4;
};

// The zstd contexts `p`'s table builder uses for the data blocks of one SST
// file with compression_opts.parallel_threads = `parallel_threads` (index
// blocks: separate_index_context). 1 unless parallel compression applies.
uint32_t ZstdDataContextsPerSstFile(const StockPattern& p, uint32_t parallel_threads,
                                    bool uses_dictionary);

// Every pattern, oldest first.
const std::vector<StockPattern>& AllPatterns();

// The pattern of a RocksDB version: a --rocksdb_version value ("6.29",
// "7.8", "8", "9", "10", "10.4", "11") or a full version from an OPTIONS
// file ("11.8.1"). 6.x maps to 6.29, 7.x to 7.8, 8.x, 9.x and 10.0-10.3 to
// "8", 10.4 and later 10.x to "10.4", 11.x to "11". InvalidArgument for
// anything else (older than 6, newer than 11, not a version).
absl::StatusOr<const StockPattern*> PatternForVersion(std::string_view version);

// One line for the report: "RocksDB 11.8.1's call pattern (pattern 11:
// 11.0-11.x, read from v11.8.1's source)".
std::string DescribePattern(const StockPattern& p, std::string_view version);

// The notes blocks mode prints about what stock created under `p`.
// `parallel`: some files' column families set parallel_threads > 1.
std::string SstStockNote(const StockPattern& p, bool parallel = false);
std::string BlobStockNote(const StockPattern& p);
// What stock creates for LZ4 and LZ4HC files (blocks mode), when some are replayed.
std::string Lz4StockNote(const StockPattern& p);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_STOCK_PATTERNS_H_
