// End-to-end tests of tools/sst_replay: the real binary on SSTs written by
// the real RocksDB (Debian 7.8.3): both modes, zstd and zlib, the byte-for-
// byte check, --json and --svg. Blob files: sst_replay_blob_cli_test.cc; bad
// inputs and usage: sst_replay_bad_input_test.cc; stock call patterns per
// RocksDB version: stock_pattern_test.cc.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compression/block_codecs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/sst/synthetic_sst.h"
#include "tests/tools/sst_replay/sst_replay_test_util.h"

namespace rockpool {
namespace {

using namespace sst_replay_testing;  // NOLINT: the suites' shared helpers
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(SstReplayTest, BlocksModeReplaysZstdAndZlibFilesByteForByte) {
  const Snapshot before = Take(*dir_);
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--rocksdb_version=7.8", zstd_->path,
                      zlib_->path, dict_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "exit_code"), "0");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.compared_blocks"),
            zstd_->num_data_blocks + zlib_->num_data_blocks + dict_->num_data_blocks);
  EXPECT_EQ(Str(kv, "input.0.codec"), "zstd");
  EXPECT_EQ(Str(kv, "input.1.codec"), "zlib");
  EXPECT_EQ(Str(kv, "input.2.blocks_mode"), "replayed");
  // Stock: a deflate and an inflate stream per zlib block, a CCtx per file.
  EXPECT_GE(Num(kv, "blocks.stock.pool_deflate_created"), zlib_->num_data_blocks);
  EXPECT_GE(Num(kv, "blocks.stock.pool_inflate_created"), zlib_->num_data_blocks);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), 2);
  EXPECT_LE(Num(kv, "blocks.pooled.contexts_created"), 8);
  EXPECT_GT(Num(kv, "blocks.stock.codec_bytes"), 20 * Num(kv, "blocks.pooled.codec_bytes"));
  EXPECT_GT(Num(kv, "blocks.stock.codec_calls"), Num(kv, "blocks.pooled.codec_calls"));
  // The whole-process counter runs in the child processes.
  if (kMallocCounter) {
    EXPECT_EQ(Num(kv, "blocks.stock.malloc_counter_active"), 1);
    EXPECT_GT(Num(kv, "blocks.stock.process_bytes"), Num(kv, "blocks.stock.codec_bytes"));
    EXPECT_GT(Num(kv, "blocks.pooled.process_calls"), 0);
  }
  EXPECT_GT(Num(kv, "blocks.pooled.peak_rss_bytes"), 0);
  EXPECT_GT(Num(kv, "blocks.pooled.wall_ns"), 0);
  EXPECT_GT(Num(kv, "blocks.pooled.throughput"), 0);
  EXPECT_GT(Num(kv, "blocks.stock.ratio"), 1.5);
  EXPECT_EQ(Num(kv, "blocks.stock.ratio"), Num(kv, "blocks.pooled.ratio"));
  EXPECT_GE(Num(kv, "blocks.pooled.series_points"), 2);
}

TEST_F(SstReplayTest, CompactionModeRunsStockAndPooledRocksDb) {
  const Snapshot before = Take(*dir_);
  Outcome o =
      Replay({"--mode=compaction", "--repeat=1", "--json", zstd_->path, zlib_->path, dict_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_GT(Num(kv, "compaction.compared_blocks"), 0);
  EXPECT_EQ(Str(kv, "input.0.compaction_mode"), "ingested");
  EXPECT_THAT(Str(kv, "input.1.compaction_mode"), HasSubstr("staged"));
  // RocksDB's own calls, through the interposed legacy face.
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), 50);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_deflate_created"), 2);
  EXPECT_GT(Num(kv, "compaction.pooled.pool_deflate_reused"), 50);
  EXPECT_GT(Num(kv, "compaction.stock.codec_bytes"), 20 * Num(kv, "compaction.pooled.codec_bytes"));
  if (kMallocCounter) {
    EXPECT_GT(Num(kv, "compaction.stock.process_bytes"),
              Num(kv, "compaction.pooled.process_bytes"));
  }
  EXPECT_GT(Num(kv, "compaction.pooled.uncompressed_bytes"), 0);
  EXPECT_EQ(Num(kv, "compaction.stock.stored_bytes"), Num(kv, "compaction.pooled.stored_bytes"));
}

// A user's ROCKPOOL_OPTIONS / ROCKPOOL_STATS must not reach the children
// (a stock child switched to pooling, children writing statistics files):
// sst_replay clears ROCKPOOL_* for every child it starts. With "%p" in the
// path every process that read the variable writes a file of its own, so
// only sst_replay's own must be there.
TEST_F(SstReplayTest, EnvironmentSwitchDoesNotReachTheChildren) {
  const std::string stats_dir = absl::StrCat(sst_testing::TestTempDir(), "/env_stats");
  std::filesystem::create_directories(stats_dir);
  ASSERT_EQ(setenv("ROCKPOOL_OPTIONS", "max_idle_per_key=8;idle_seconds=600", 1), 0);
  ASSERT_EQ(setenv("ROCKPOOL_STATS", (stats_dir + "/stats.%p").c_str(), 1), 0);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", "--json", zlib_->path});
  unsetenv("ROCKPOOL_OPTIONS");
  unsetenv("ROCKPOOL_STATS");
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Num(kv, "compaction.stock.pool_deflate_reused"), 0);
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), 50);
  EXPECT_GT(Num(kv, "compaction.pooled.pool_deflate_reused"), 50);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(stats_dir)) {
    files.push_back(e.path().filename().string());
  }
  EXPECT_EQ(files.size(), 1u) << "statistics files: " << absl::StrJoin(files, " ");
}

TEST_F(SstReplayTest, TableAndSvgForBothModes) {
  const std::string svg = sst_testing::TestTempDir() + "/chart.svg";
  Outcome o =
      Replay({"--repeat=2", "--rocksdb_version=7.8", "--svg=" + svg, zstd_->path, zlib_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("blocks mode:"));
  EXPECT_THAT(o.out, HasSubstr("compaction mode:"));
  EXPECT_THAT(o.out, HasSubstr("stock"));
  EXPECT_THAT(o.out, HasSubstr("pooled"));
  EXPECT_THAT(o.out, HasSubstr("delta"));
  EXPECT_THAT(o.out, HasSubstr("codec lib bytes allocated"));
  EXPECT_THAT(o.out, HasSubstr("peak RSS"));
  EXPECT_THAT(o.out, HasSubstr("outputs: identical"));
  EXPECT_THAT(o.out, HasSubstr("2 stock + 2 pooled"));
  // No terminal: no progress bar.
  EXPECT_THAT(o.err, Not(HasSubstr("[#")));
  auto kv = Inspect("svg", ReadFile(svg));
  EXPECT_EQ(Str(kv, "root"), "{http://www.w3.org/2000/svg}svg");
  EXPECT_EQ(Num(kv, "polylines"), 8);   // 2 modes x 2 strategies x 2 lines
  EXPECT_GE(Num(kv, "rects"), 2 * 18);  // the bars
}

TEST_F(SstReplayTest, DefaultWorkloadWithoutInputs) {
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--workload_mb=3", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "default_workload"), "true");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_GT(Num(kv, "blocks.stock.pool_deflate_created"), 100);
  EXPECT_GT(Num(kv, "blocks.stock.pool_zstd_compress_created"), 0);
  // The "histories" family's blobs: a zstd CCtx per blob in stock.
  EXPECT_GT(Num(kv, "blocks.stock.blobs"), 100);
  EXPECT_GE(Num(kv, "blocks.stock.blob_files"), 1);
  EXPECT_GT(Num(kv, "blocks.stock.pool_zstd_compress_created"), Num(kv, "blocks.stock.blobs"));
  EXPECT_LE(Num(kv, "blocks.pooled.pool_zstd_compress_created"), 2);
}

TEST_F(SstReplayTest, DbDirectoryIsOnlyRead) {
  const Snapshot before = Take(*zlib_db_);
  ASSERT_FALSE(before.files.empty());
  Outcome o = Replay({"--repeat=1", *zlib_db_});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("outputs: identical"));
  EXPECT_EQ(Take(*zlib_db_), before) << "the DB directory was modified";
}

TEST_F(SstReplayTest, ReblockingCodecAndLevelOverrides) {
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--block_size=16384", "--codec=zlib",
                      "--level=1", "--rocksdb_version=7.8", zstd_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.stock.source_blocks"), zstd_->num_data_blocks);
  EXPECT_LT(Num(kv, "blocks.stock.blocks"), zstd_->num_data_blocks / 4);
  // A deflate stream per new block, and per index block (the file's own).
  EXPECT_EQ(Num(kv, "blocks.stock.pool_deflate_created"),
            Num(kv, "blocks.stock.blocks") + Num(kv, "blocks.stock.index_blocks"));
  EXPECT_EQ(Num(kv, "blocks.stock.index_blocks"), 1);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), 0);
}

TEST_F(SstReplayTest, OtherCodecsAreReportedAndSkipped) {
  Outcome o = Replay({"--repeat=1", "--json", "--rocksdb_version=7.8", snappy_->path, zstd_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "input.0.codec"), "snappy");
  EXPECT_THAT(Str(kv, "input.0.blocks_mode"), HasSubstr("skipped: snappy (no context to pool"));
  EXPECT_THAT(Str(kv, "input.0.compaction_mode"), HasSubstr("skipped: snappy"));
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");

  // One line per mode for the snappy inputs, not one per file.
  Outcome only = Replay({"--repeat=1", "--rocksdb_version=7.8", snappy_->path});
  EXPECT_EQ(only.code, 0) << only.err;
  EXPECT_THAT(only.err, HasSubstr("no file with zstd, zlib or LZ4 data"));
  EXPECT_THAT(only.out, HasSubstr("note: 1 snappy input not replayed: snappy has no context to "
                                  "pool (its API takes none"));
}

// The released binary has no way to damage its output; the testing one
// (tools/sst_replay/child_runs_testing.cc) damages the first pooled output.
TEST_F(SstReplayTest, PooledOutputThatDiffersExitsOne) {
  Outcome released =
      Replay({"--mode=blocks", "--repeat=1", "--testonly_corrupt_pooled_output", zlib_->path});
  EXPECT_EQ(released.code, 2) << released.err;
  EXPECT_THAT(released.err, HasSubstr("unknown flag --testonly_corrupt_pooled_output"));

  const std::string testing_binary = SstReplayTestingBinary();
  Outcome blocks = ReplayWith(testing_binary, {"--mode=blocks", "--repeat=1", "--json",
                                               "--testonly_corrupt_pooled_output", zlib_->path});
  EXPECT_EQ(blocks.code, 1) << blocks.err;
  EXPECT_THAT(
      blocks.err,
      HasSubstr("blocks mode: pooled output differs from stock: " + zlib_->path + ": offset "));
  auto kv = Inspect("json", blocks.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "false");
  EXPECT_EQ(Str(kv, "exit_code"), "1");

  Outcome compaction = ReplayWith(
      testing_binary,
      {"--mode=compaction", "--repeat=1", "--testonly_corrupt_pooled_output", zstd_->path});
  EXPECT_EQ(compaction.code, 1) << compaction.err;
  EXPECT_THAT(compaction.err, HasSubstr("compaction mode: pooled output differs from stock"));
  EXPECT_THAT(compaction.out, HasSubstr("outputs: DIFFERENT"));
}

// Compaction mode copies its inputs into every run's scratch DB: it says
// what that takes, and refuses to start (one line, exit 2) when the scratch
// directory's file system has no room for it.
TEST_F(SstReplayTest, CompactionModeSaysItsDiskUseAndRefusesWithoutRoom) {
  Outcome ok = Replay({"--mode=compaction", "--repeat=1", zstd_->path});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_THAT(ok.err, HasSubstr("sst_replay: compaction mode copies "));
  EXPECT_THAT(ok.err, HasSubstr("(2 runs, 2 copies at once): needs up to "));

  Outcome full = Replay(
      {"--mode=compaction", "--repeat=1", "--testonly_scratch_free_bytes=4096", zstd_->path});
  EXPECT_EQ(full.code, 2) << full.err;
  EXPECT_EQ(std::count(full.err.begin(), full.err.end(), '\n'), 1) << full.err;
  EXPECT_THAT(full.err, HasSubstr("sst_replay: compaction mode needs up to "));
  EXPECT_THAT(full.err, HasSubstr("and only 4.00 KiB is free"));
  EXPECT_EQ(full.out, "");
}

// LZ4 (SstFileWriter, ingested as is) and LZ4HC (a DB flush, staged) in
// both modes, with 7.8.3's per-block pattern in blocks mode and RocksDB's
// own calls in compaction mode.
TEST_F(SstReplayTest, Lz4AndLz4HcFilesInBothModes) {
  const std::string dir = sst_testing::TestTempDir();
  SstFixtureOptions lz4;
  lz4.compression = rocksdb::kLZ4Compression;
  lz4.num_keys = 2000;
  absl::StatusOr<SstFixture> a = sst_testing::WriteSstFile(lz4, dir + "/lz4.sst");
  ASSERT_TRUE(a.ok()) << a.status();
  SstFixtureOptions hc = lz4;
  hc.compression = rocksdb::kLZ4HCCompression;
  hc.seed = 5;
  absl::StatusOr<SstFixture> b = sst_testing::WriteSstByFlush(hc, dir + "/lz4hc_db");
  ASSERT_TRUE(b.ok()) << b.status();
  Outcome o = Replay({"--repeat=1", "--json", "--rocksdb_version=7.8", a->path, b->path});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "input.0.codec"), "lz4");
  EXPECT_EQ(Str(kv, "input.1.codec"), "lz4hc");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.compared_blocks"), a->num_data_blocks + b->num_data_blocks);
  EXPECT_GE(Num(kv, "blocks.stock.pool_lz4_created"), a->num_data_blocks);
  EXPECT_GE(Num(kv, "blocks.stock.pool_lz4hc_created"), b->num_data_blocks);
  EXPECT_EQ(Num(kv, "blocks.pooled.pool_lz4hc_created"), 1);
  EXPECT_GT(Num(kv, "blocks.stock.codec_bytes"), 100 * Num(kv, "blocks.pooled.codec_bytes"));
  EXPECT_THAT(o.out, HasSubstr("LZ4_streamHC_t (256 KiB) per LZ4HC one"));
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_THAT(Str(kv, "input.1.compaction_mode"), HasSubstr("staged"));
  // RocksDB's LZ4 streams reach the pools only through a legacy face that
  // interposes liblz4; a pooled run says when none did.
  const double leases = Num(kv, "compaction.pooled.pool_lz4hc_created") +
                        Num(kv, "compaction.pooled.pool_lz4hc_reused");
  if (leases == 0) {
    EXPECT_THAT(o.out, HasSubstr("no LZ4 stream reached rockpool's pools"));
  } else {
    EXPECT_THAT(o.out, Not(HasSubstr("no LZ4 stream reached rockpool's pools")));
    EXPECT_LE(Num(kv, "compaction.pooled.pool_lz4hc_created"), 4);
  }
}

// format_version 7 (RocksDB 11.x), XXH3 with context checksums, a
// partitioned index, zstd blocks and no table properties about compression:
// RocksDB 7.8.3 cannot read it, so compaction mode stages it with
// rockpool's reader.
TEST_F(SstReplayTest, FormatVersion7FilesFromNewerRocksDb) {
  static CompressionPools* pools = new CompressionPools();
  static BlockCodecs* codecs = new BlockCodecs(pools);
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 4000; ++i) {
    std::string key = absl::StrCat("user", 100000 + i);
    const uint64_t footer = (uint64_t{static_cast<uint64_t>(i) + 1} << 8) | 1;  // seq, kTypeValue
    for (int b = 0; b < 8; ++b) key.push_back(static_cast<char>(footer >> (8 * b)));
    kvs.emplace_back(
        key, absl::StrCat("{\"name\":\"user ", i, "\",\"plan\":\"basic\",\"n\":", i % 7, "}"));
  }
  sst_testing::SyntheticSstOptions options;
  options.format_version = 7;
  options.checksum = sst::ChecksumType::kXXH3;
  options.index_type = sst::IndexType::kTwoLevelIndexSearch;
  options.entries_per_block = 40;
  options.compressor = [](std::string_view contents, bool) {
    std::string out;
    EXPECT_TRUE(codecs->zstd().Compress(contents, 3, nullptr, &out).ok());
    return std::pair<uint8_t, std::string>(7, out);
  };
  const std::string path = sst_testing::TestTempDir() + "/fv7.sst";
  std::ofstream(path, std::ios::binary) << sst_testing::BuildSyntheticSst(kvs, options).bytes;
  const Snapshot before = Take(path);
  Outcome o = Replay({"--repeat=1", "--json", path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(path), before);
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "input.0.codec"), "zstd");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.compared_blocks"), 100);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_THAT(Str(kv, "input.0.compaction_mode"), HasSubstr("staged"));
}

}  // namespace
}  // namespace rockpool
