// Which RocksDB's call pattern "stock" replays (--rocksdb_version): given,
// or detected from the inputs (README.md beside this file, "Whose stock?")
// and the OPTIONS files beside them (tools/sst/options_file.h).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/sst/options_file.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {

// One input as the detector sees it.
struct VersionInput {
  std::string path;  // as given
  bool is_blob = false;
  uint32_t format_version = 0;  // SSTs; 0 for blobs and directories
  // An SST's recorded compression manager (InputFile::compression_manager).
  std::string compression_manager = "";
};

struct PatternChoice {
  const StockPattern* pattern = nullptr;
  std::string version;  // "11.8.1", "7.8" (as given), ">= 10.4"
  std::string source;   // "OPTIONS-000007 in /db", "--rocksdb_version", ...
  // Recorded in OPTIONS files or SST properties, deduplicated.
  std::vector<std::string> compression_managers;
  std::vector<std::string> notes;  // e.g. the flag overrode a detected version
};

// The notes on the inputs' parallel compression under `pattern`: what stock
// replays per SST file of each family that sets it, or that stock is a
// lower bound where the pattern does not replay it. `options` are the
// OPTIONS files of the inputs' directories.
std::vector<std::string> ParallelCompressionNotes(const StockPattern& pattern,
                                                  const std::vector<sst::OptionsFileInfo>& options);

// `flag` is --rocksdb_version ("auto" or a version). `files` are the files
// blocks mode replays (SSTs and blobs). InvalidArgument naming --rocksdb_version when the
// pattern cannot be told (no OPTIONS file, inputs that disagree). `options`
// reads the OPTIONS files (a fresh one if null).
absl::StatusOr<PatternChoice> ChoosePattern(const std::string& flag,
                                            const std::vector<VersionInput>& files,
                                            sst::OptionsFiles* options = nullptr);

// The report's header line: "stock = RocksDB 11.8.1's call pattern (...),
// from OPTIONS-000007 in /db: the figures are for the RocksDB that last
// opened the DB".
std::string PatternHeader(const PatternChoice& c);
// What a recorded compression_manager means for the figures; "" if none.
std::string CompressionManagerNote(const PatternChoice& c);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_
