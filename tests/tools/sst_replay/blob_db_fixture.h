// Integrated BlobDB fixtures for the sst_replay tests, written by the real
// RocksDB 7.8.3: a DB whose "blobs" column family stores values of 1 KiB
// and more in blob files compressed with a given codec, flushed and closed
// (so every blob file has its footer).
#ifndef ROCKPOOL_TESTS_TOOLS_SST_REPLAY_BLOB_DB_FIXTURE_H_
#define ROCKPOOL_TESTS_TOOLS_SST_REPLAY_BLOB_DB_FIXTURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/options.h"

namespace rockpool::replay_testing {

struct BlobDb {
  std::string dir;
  std::vector<std::string> blob_files;  // sorted
  std::vector<std::string> sst_files;   // sorted
  uint64_t blobs = 0;                   // values written as blobs
};

// `flushes` memtables of `keys_per_flush` keys each, 1-4 KiB JSON-like
// values (compressible), into `dir` (must not exist).
absl::StatusOr<BlobDb> WriteBlobDb(const std::string& dir,
                                   rocksdb::CompressionType blob_compression, int flushes = 2,
                                   int keys_per_flush = 150);

// A copy of `blob_file` without its 32-byte footer: what a blob file still
// being written looks like.
std::string CopyWithoutFooter(const std::string& blob_file, const std::string& to);

// Overwrites the payload of record `n` of `blob_file` (in place) with bytes
// that do not decompress, after its 2-byte size prefix, and recomputes its
// blob CRC: the file still parses, only decompression fails. Returns the
// record's offset.
uint64_t CorruptBlobPayload(const std::string& blob_file, size_t n);

}  // namespace rockpool::replay_testing

#endif  // ROCKPOOL_TESTS_TOOLS_SST_REPLAY_BLOB_DB_FIXTURE_H_
