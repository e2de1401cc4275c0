// Which RocksDB's call pattern "stock" replays (--rocksdb_version): given,
// or detected from the inputs (README.md beside this file, "Whose stock?").
// OPTIONS files are read as text: 7.8.3's options parser rejects newer
// options.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {

// parallel_threads values above this are taken as this many: blocks mode
// holds that many contexts per file, and an OPTIONS file is untrusted input.
inline constexpr uint32_t kMaxParallelThreads = 64;

// One column family's parallel compression setting.
struct ParallelCompression {
  std::string column_family;
  uint32_t threads = 1;  // compression_opts.parallel_threads
  // bottommost_compression_opts.parallel_threads when those options are
  // enabled (RocksDB then uses them for bottommost-level files); 0 if not.
  uint32_t bottommost_threads = 0;
};

// What one OPTIONS file records.
struct OptionsFileInfo {
  std::string path;
  std::string rocksdb_version;  // "" if the file has none
  // Every non-empty compression_manager value of its [CFOptions] sections
  // ("nullptr" left out), deduplicated, in file order.
  std::vector<std::string> compression_managers;
  // Column families whose compression_opts, or enabled
  // bottommost_compression_opts, set parallel_threads > 1, in file order.
  std::vector<ParallelCompression> parallel_compression;
};

// The compression_opts.parallel_threads of one column family's files, from
// its OPTIONS file (SST files do not record it).
uint32_t ParallelThreadsOf(const OptionsFileInfo& options, const std::string& column_family);

// Parses the text of an OPTIONS file.
OptionsFileInfo ParseOptionsText(const std::string& path, const std::string& text);

// The newest OPTIONS file beside each input, read once per directory: the
// pattern choice and the parallel_threads lookup ask the same files.
class OptionsFiles {
 public:
  // The newest (highest-numbered) OPTIONS-<n> file of `path`'s directory
  // ("." for a bare name); nullptr if it has none or it cannot be read. The
  // pointer stays valid as long as this object.
  const OptionsFileInfo* Beside(const std::string& path);

 private:
  std::map<std::string, std::optional<OptionsFileInfo>> by_dir_;
};

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
                                                  const std::vector<OptionsFileInfo>& options);

// `flag` is --rocksdb_version ("auto" or a version). `files` are the files
// blocks mode replays (SSTs and blobs). InvalidArgument naming --rocksdb_version when the
// pattern cannot be told (no OPTIONS file, inputs that disagree). `options`
// reads the OPTIONS files (a fresh one if null).
absl::StatusOr<PatternChoice> ChoosePattern(const std::string& flag,
                                            const std::vector<VersionInput>& files,
                                            OptionsFiles* options = nullptr);

// The report's header line: "stock = RocksDB 11.8.1's call pattern (...),
// from OPTIONS-000007 in /db: the figures are for the RocksDB that last
// opened the DB".
std::string PatternHeader(const PatternChoice& c);
// What a recorded compression_manager means for the figures; "" if none.
std::string CompressionManagerNote(const PatternChoice& c);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ROCKSDB_VERSION_H_
