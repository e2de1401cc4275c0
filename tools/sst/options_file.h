// RocksDB's OPTIONS files read as text, not through RocksDB's options
// parser (7.8.3's rejects the options newer releases write): which RocksDB
// last opened the DB, the compression managers and the parallel compression
// settings of its column families. Any text parses; what cannot be read is
// left out. sst_replay chooses its stock call pattern from them
// (tools/sst_replay/rocksdb_version.h, README.md beside it, "Whose stock?").
#ifndef ROCKPOOL_TOOLS_SST_OPTIONS_FILE_H_
#define ROCKPOOL_TOOLS_SST_OPTIONS_FILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rockpool::sst {

// parallel_threads values above this are taken as this many: sst_replay's
// blocks mode holds that many contexts per file, and an OPTIONS file is
// untrusted input.
inline constexpr uint32_t kMaxParallelThreads = 64;

// The largest OPTIONS file read; a larger one counts as absent.
inline constexpr uint64_t kMaxOptionsFileBytes = uint64_t{64} << 20;

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

// The directory whose OPTIONS file describes `path`: its parent, "." for a
// bare name.
std::string DirectoryOf(const std::string& path);

// The newest OPTIONS file beside each input, read once per directory: the
// pattern choice and the parallel_threads lookup ask the same files.
class OptionsFiles {
 public:
  // The newest (highest-numbered) OPTIONS-<n> file of DirectoryOf(`path`);
  // nullptr if it has none or it cannot be read. The pointer stays valid as
  // long as this object.
  const OptionsFileInfo* Beside(const std::string& path);

 private:
  std::map<std::string, std::optional<OptionsFileInfo>> by_dir_;
};

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_OPTIONS_FILE_H_
