// Shared pieces of the end-to-end tests of tools/sst_replay (the real
// binary on files the real RocksDB wrote): spawning sst_replay, reading its
// --json and --svg through inspect_output.py, input snapshots, and the
// fixture files every suite reads (written once per test binary).
#ifndef ROCKPOOL_TESTS_TOOLS_SST_REPLAY_SST_REPLAY_TEST_UTIL_H_
#define ROCKPOOL_TESTS_TOOLS_SST_REPLAY_SST_REPLAY_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tests/tools/sst_replay/blob_db_fixture.h"
#include "tests/tools/sst_replay/replay_cli.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst_replay_testing {

namespace fs = std::filesystem;
using sst_testing::SstFixture;
using sst_testing::SstFixtureOptions;

// Contents and modification times of a file or of every file under a
// directory: must not change when sst_replay reads them.
struct Snapshot {
  std::map<std::string, std::pair<std::string, int64_t>> files;
  bool operator==(const Snapshot&) const = default;
};
Snapshot Take(const std::string& path);

void PatchFile(const std::string& path, uint64_t offset, const std::string& bytes);
sst::BlockHandle FirstDataBlock(const std::string& path);

class SstReplayTest : public ::testing::Test {
 public:
  // The fixture files are written once for every suite derived from this
  // one, and only read afterwards (tests damage private copies).
  static void SetUpTestSuite() {
    if (dir_ != nullptr) return;
    dir_ = new std::string(sst_testing::TestTempDir());
    // zstd, written by SstFileWriter (ingestible as is).
    SstFixtureOptions zstd;
    zstd.compression = rocksdb::kZSTD;
    zstd.num_keys = 3000;
    zstd_ = new SstFixture(*sst_testing::WriteSstFile(zstd, *dir_ + "/zstd.sst"));
    // zlib, written by a DB flush (staged for ingestion in compaction mode).
    SstFixtureOptions zlib;
    zlib.compression = rocksdb::kZlibCompression;
    zlib.num_keys = 3000;
    zlib.seed = 2;
    zlib_db_ = new std::string(*dir_ + "/zlib_db");
    zlib_ = new SstFixture(*sst_testing::WriteSstByFlush(zlib, *zlib_db_));
    // zstd with a trained dictionary, partitioned index.
    SstFixtureOptions dict = zstd;
    dict.max_dict_bytes = 8192;
    dict.zstd_max_train_bytes = 65536;
    dict.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    dict.seed = 3;
    dict_ = new SstFixture(*sst_testing::WriteSstFile(dict, *dir_ + "/zstd_dict.sst"));
    SstFixtureOptions snappy;
    snappy.compression = rocksdb::kSnappyCompression;
    snappy.num_keys = 500;
    snappy_ = new SstFixture(*sst_testing::WriteSstFile(snappy, *dir_ + "/snappy.sst"));
    // Integrated BlobDB, zstd and zlib blobs.
    zstd_blobs_ = new replay_testing::BlobDb(
        *replay_testing::WriteBlobDb(*dir_ + "/zstd_blob_db", rocksdb::kZSTD));
    zlib_blobs_ = new replay_testing::BlobDb(
        *replay_testing::WriteBlobDb(*dir_ + "/zlib_blob_db", rocksdb::kZlibCompression));
  }

  // The offset of the `n`th record of a blob file.
  static uint64_t BlobRecordOffset(const std::string& path, size_t n) {
    const std::string data = ReadFile(path);
    absl::StatusOr<sst::BlobFile> f = sst::ParseBlobFile(data, path);
    EXPECT_TRUE(f.ok() && f->records.size() > n);
    return f.ok() && f->records.size() > n ? f->records[n].offset : 0;
  }

  // A private copy of a fixture file, to damage.
  static std::string Copy(const std::string& from, const std::string& name) {
    const std::string to = absl::StrCat(sst_testing::TestTempDir(), "/", name);
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
  }

  static std::string* dir_;
  static std::string* zlib_db_;
  static SstFixture* zstd_;
  static SstFixture* zlib_;
  static SstFixture* dict_;
  static SstFixture* snappy_;
  static replay_testing::BlobDb* zstd_blobs_;
  static replay_testing::BlobDb* zlib_blobs_;
};

}  // namespace rockpool::sst_replay_testing

#endif  // ROCKPOOL_TESTS_TOOLS_SST_REPLAY_SST_REPLAY_TEST_UTIL_H_
