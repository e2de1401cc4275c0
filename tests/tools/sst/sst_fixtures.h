// Reusable fixtures: SST files written by the real RocksDB (Debian 7.8.3, or
// the one @rocksdb points at), with the key/values that went in, so tests
// can compare what a reader decodes against ground truth.
//
//   SstFixtureOptions o;
//   o.compression = rocksdb::kZSTD;
//   o.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
//   absl::StatusOr<SstFixture> f = WriteSstFile(o, TestTempDir() + "/a.sst");
//   // f->path, f->kvs (user keys, in order), f->num_data_blocks
#ifndef ROCKPOOL_TESTS_TOOLS_SST_SST_FIXTURES_H_
#define ROCKPOOL_TESTS_TOOLS_SST_SST_FIXTURES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst_testing {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct SstFixtureOptions {
  rocksdb::CompressionType compression = rocksdb::kNoCompression;
  uint32_t format_version = 5;
  rocksdb::ChecksumType checksum = rocksdb::kCRC32c;
  rocksdb::BlockBasedTableOptions::IndexType index_type =
      rocksdb::BlockBasedTableOptions::kBinarySearch;
  int index_block_restart_interval = 1;  // > 1 exercises value delta encoding
  uint64_t metadata_block_size = 1024;   // index partition size
  size_t block_size = 2048;
  bool data_block_hash_index = false;  // kDataBlockBinaryAndHash
  // zstd dictionary: both > 0 trains one with ZDICT; max_dict_bytes alone
  // uses raw samples.
  uint32_t max_dict_bytes = 0;
  uint32_t zstd_max_train_bytes = 0;
  bool enable_index_compression = true;  // RocksDB's default
  size_t num_keys = 2000;
  size_t value_size = 200;
  uint64_t seed = 1;
  // Last word on the options, applied after everything above.
  std::function<void(rocksdb::Options*, rocksdb::BlockBasedTableOptions*)> customize;

  // e.g. "zstd_fv5_xxh3_partitioned_dict"; usable in test and file names.
  std::string Name() const;
};

// gtest printing: the Name().
void PrintTo(const SstFixtureOptions& options, std::ostream* os);

struct SstFixture {
  std::string path;
  KeyValues kvs;                 // user keys in written order, with their values
  uint64_t num_data_blocks = 0;  // RocksDB's table property
};

// Sorted, deterministic, compressible key/values.
KeyValues MakeKeyValues(size_t num_keys, size_t value_size, uint64_t seed);

// rocksdb::Options and table options the fixture writes with.
rocksdb::Options MakeRocksDbOptions(const SstFixtureOptions& options);

// Writes `path` with rocksdb::SstFileWriter (sequence numbers 0).
absl::StatusOr<SstFixture> WriteSstFile(const SstFixtureOptions& options, const std::string& path);

// Opens a fresh DB in `db_dir`, puts the key/values (sequence numbers 1..n),
// flushes once and returns the single SST it wrote.
absl::StatusOr<SstFixture> WriteSstByFlush(const SstFixtureOptions& options,
                                           const std::string& db_dir);

// RocksDB's own view of a file's table properties.
absl::StatusOr<std::shared_ptr<const rocksdb::TableProperties>> ReadRocksDbTableProperties(
    const std::string& path);

// zstd + zlib through rockpool's pooled codecs (//compression:block_codecs).
sst::BlockDecompressor TestDecompressor();
// Default SstReadOptions with TestDecompressor().
sst::SstReadOptions TestReadOptions();

// Every (internal key, value) of every data block, in file order, read with
// the rockpool::sst reader (DataBlockHandles, ReadBlockContents,
// BlockIterator).
absl::StatusOr<KeyValues> ReadAllDataEntries(const sst::SstFile& file);

// A fresh directory under $TEST_TMPDIR (or /tmp), unique per call.
std::string TestTempDir();

}  // namespace rockpool::sst_testing

#endif  // ROCKPOOL_TESTS_TOOLS_SST_SST_FIXTURES_H_
