// End-to-end tests of tools/sst_replay on integrated BlobDB blob files
// written by the real RocksDB 7.8.3: blocks mode record by record, compaction
// mode on a copied BlobDB, and bad blob files.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/sst_replay/sst_replay_test_util.h"
#include "tools/sst/blob_file.h"

namespace rockpool {
namespace {

using namespace sst_replay_testing;  // NOLINT: the suites' shared helpers
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(SstReplayTest, BlocksModeReplaysBlobFilesByteForByte) {
  const Snapshot before = Take(*dir_);
  const std::string open = replay_testing::CopyWithoutFooter(
      zlib_blobs_->blob_files[1], sst_testing::TestTempDir() + "/000777.blob");
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--rocksdb_version=7.8",
                      zstd_blobs_->dir, zlib_blobs_->blob_files[0], open});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  const double zlib_blobs = static_cast<double>(zlib_blobs_->blobs);
  const double blobs = static_cast<double>(zstd_blobs_->blobs) + zlib_blobs;
  EXPECT_EQ(Num(kv, "blocks.stock.blobs"), blobs);
  EXPECT_EQ(Num(kv, "blocks.stock.blob_files"), 4);
  EXPECT_GT(Num(kv, "blocks.compared_blocks"), blobs);  // the DB's SST blocks too
  // SSTs first (the zstd DB's), then its blob files, the zlib one, the open one.
  const size_t n = zstd_blobs_->sst_files.size();
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n, ".kind")), "blob");
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n + 3, ".kind")),
            "blob (no footer: still being written)");
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n + 3, ".blocks_mode")), "replayed");
  // Stock: a CCtx per zstd blob (plus one per SST), a deflate stream per
  // zlib blob, an inflate stream per zlib blob read (input and check).
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), zstd_blobs_->blobs + n);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_deflate_created"), zlib_blobs);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_inflate_created"), 2 * zlib_blobs);
  EXPECT_LE(Num(kv, "blocks.pooled.contexts_created"), 4);
  EXPECT_GT(Num(kv, "blocks.stock.codec_bytes"), 20 * Num(kv, "blocks.pooled.codec_bytes"));
}

TEST_F(SstReplayTest, CompactionModeCopiesABlobDbAndRewritesItsBlobs) {
  const Snapshot before = Take(zlib_blobs_->dir);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", "--json", zlib_blobs_->dir});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(zlib_blobs_->dir), before) << "the DB directory was modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_EQ(Str(kv, "input.0.compaction_mode"), "copied with its DB and compacted");
  const double blobs = static_cast<double>(zlib_blobs_->blobs);
  // Garbage collection with age cutoff 1.0 rewrote every blob...
  EXPECT_EQ(Num(kv, "compaction.stock.output_blobs"), blobs);
  EXPECT_EQ(Num(kv, "compaction.pooled.output_blobs"), blobs);
  EXPECT_GE(Num(kv, "compaction.stock.output_blob_files"), 1);
  EXPECT_GT(Num(kv, "compaction.compared_blocks"), blobs);  // blobs and SST data blocks
  // ... each through a deflate stream of its own in stock RocksDB 7.8.3,
  // and an inflate stream per blob read.
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), blobs);
  EXPECT_GE(Num(kv, "compaction.stock.pool_inflate_created"), blobs);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_deflate_created"), 2);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_inflate_created"), 2);
  EXPECT_GT(Num(kv, "compaction.stock.codec_bytes"), 20 * Num(kv, "compaction.pooled.codec_bytes"));
}

TEST_F(SstReplayTest, CompactionModeSkipsABlobFileWithoutItsDb) {
  Outcome o = Replay({"--mode=compaction", "--repeat=1", zstd_blobs_->blob_files[0]});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("no file with zstd, zlib or LZ4 data to compact"));
  EXPECT_THAT(o.out, HasSubstr("a blob file is compacted with its DB (pass the DB directory)"));
}

TEST_F(SstReplayTest, CompactionModeOnABlobDbWithABadBlobExitsTwo) {
  const std::string db = sst_testing::TestTempDir() + "/bad_blob_db";
  fs::create_directories(db);
  for (const auto& e : fs::directory_iterator(zstd_blobs_->dir)) {
    fs::copy_file(e.path(), db + "/" + e.path().filename().string());
  }
  const std::string blob = db + "/" + fs::path(zstd_blobs_->blob_files[1]).filename().string();
  const uint64_t offset = BlobRecordOffset(blob, 3);
  PatchFile(blob, offset + 50, "\x01\x02");
  const Snapshot before = Take(db);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", db});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr(absl::StrCat(blob, ": offset ", offset, ": blob record CRC")));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(Take(db), before);
}

// CRCs intact, payload not deflate data: compaction mode must name the blob
// before RocksDB reads it.
TEST_F(SstReplayTest, CompactionModeOnABlobDbWithAnUndecompressableBlobExitsTwo) {
  const std::string db = sst_testing::TestTempDir() + "/undecompressable_blob_db";
  fs::create_directories(db);
  for (const auto& e : fs::directory_iterator(zlib_blobs_->dir)) {
    fs::copy_file(e.path(), db + "/" + e.path().filename().string());
  }
  const std::string blob = db + "/" + fs::path(zlib_blobs_->blob_files[0]).filename().string();
  const uint64_t offset = replay_testing::CorruptBlobPayload(blob, 2);
  ASSERT_GT(offset, 0u);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", db});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err,
              HasSubstr(absl::StrCat(blob, ": offset ", offset, ": blob does not decompress")));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

}  // namespace
}  // namespace rockpool
