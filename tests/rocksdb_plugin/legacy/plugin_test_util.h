// Helpers shared by the plugin tests: scratch directories, a deterministic
// key/value workload, waiting for RocksDB's background work, and comparing
// the data blocks of two sets of SST files with rockpool's SST reader.
#ifndef ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PLUGIN_TEST_UTIL_H_
#define ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PLUGIN_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rocksdb/db.h"

namespace rockpool::plugin_test {

// A fresh, empty directory under $TEST_TMPDIR (or /tmp).
std::string NewTempDir(const std::string& name);

// Whole file; empty string if unreadable.
std::string ReadFile(const std::string& path);

// Key i, and the value of version v of key i: ~value_size bytes of text that
// compresses (words and random letters, as real values often do).
std::string Key(int i);
std::string Value(int i, int version, size_t value_size = 200);

// Waits until no flush or compaction is pending or running (RocksDB 7.8.3 has
// no WaitForCompact). False on timeout.
bool WaitForBackgroundWork(rocksdb::DB* db, int timeout_seconds = 60);

// The *.sst files of a DB directory, sorted by name.
std::vector<std::string> SstFiles(const std::string& dir);

struct BlockComparison {
  size_t files = 0;
  size_t data_blocks = 0;
  size_t compressed_blocks = 0;  // trailer type zstd or zlib
  size_t files_with_dictionary = 0;
};

// Compares the data blocks (payload and compression type, raw; checksums
// are verified, not compared) of the SST files of
// two directories, file by file (same names) and block by block, with
// //tools/sst. Error on the first difference.
absl::StatusOr<BlockComparison> CompareDataBlocks(const std::string& dir_a,
                                                  const std::string& dir_b);

// Runs a shell command line, capturing stdout and stderr together.
struct Result {
  int exit_code = -1;
  std::string output;
};
Result Sh(const std::string& command);

// The value of ` name=<digits>` after `section` in a `rockpool report:` line
// (0 if absent).
uint64_t Field(const std::string& line, const std::string& section, const std::string& name);

// Lines of the DB's info LOG containing `needle`.
std::vector<std::string> LogLines(const std::string& db_dir, const std::string& needle);

}  // namespace rockpool::plugin_test

#endif  // ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_PLUGIN_TEST_UTIL_H_
