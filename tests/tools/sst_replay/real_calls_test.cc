// Blocks mode's stock context counts against the real calls of the RocksDB
// this test is linked with: a DB is written with flushes
// only, while rockpool's legacy face counts every ZSTD_CCtx and deflate
// stream RocksDB creates (measure_stock: RocksDB creates and frees them as
// always); then sst_replay replays the same files with the pattern it
// detects from the DB's OPTIONS file, and its stock counts must match.
//
//   real_calls_test           Debian's librocksdb 7.8.3 (pattern 7.8), or
//                             the upstream install when built with one
//   upstream_real_calls_test  the same against ROCKPOOL_ROCKSDB_PREFIX
//                             (RocksDB >= 10.4); skips, passing, without it
//
// Matched: zstd CCtxs exactly (SST files: one per file in 7.8.3, an index and
// a data working area per file in 10.4+; blobs: one per blob up to 10.x, one
// per blob file in 11.x, which equals one per flush job here: one blob file
// per flush); deflate streams within 1% (data and index blocks, blobs).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/tools/sst_replay/replay_cli.h"
#include "tools/sst/rocksdb_calls.h"

namespace rockpool {
namespace {

using namespace sst_replay_testing;  // NOLINT: the suites' shared helpers
using ::testing::HasSubstr;

constexpr int kLinkedMajor = ROCKSDB_MAJOR;
constexpr int kLinkedMinor = ROCKSDB_MINOR;

std::string Linked() { return absl::StrCat(ROCKSDB_MAJOR, ".", ROCKSDB_MINOR, ".", ROCKSDB_PATCH); }

// The pattern sst_replay must pick for the linked RocksDB.
std::string ExpectedPattern() {
  if (kLinkedMajor >= 11) return "11";
  if (kLinkedMajor == 10 && kLinkedMinor >= 4) return "10.4";
  if (kLinkedMajor >= 8) return "8";
  return kLinkedMajor == 7 ? "7.8" : "6.29";
}

struct Real {
  uint64_t zstd_cctx = 0;
  uint64_t deflate = 0;
};

Real Now() {
  const CompressionPoolsStats s = legacy::Stats();
  return Real{s.zstd_compress.created, s.deflate.created};
}

std::string Value(int i, int size) {
  std::string v = absl::StrFormat("{\"id\":%d,\"name\":\"user %d\",\"tags\":[", i, i % 97);
  while (static_cast<int>(v.size()) < size)
    absl::StrAppend(&v, "\"t", (i * 7 + v.size()) % 13, "\",");
  v.resize(static_cast<size_t>(size));
  return v;
}

// Writes `flushes` x `keys` values of `value_size` bytes into one column
// family with `cf`, flushing after each batch; returns what RocksDB created
// meanwhile.
Real WriteDb(const std::string& dir, const rocksdb::ColumnFamilyOptions& cf, int flushes, int keys,
             int value_size) {
  legacy::Configure([] {
    RockpoolOptions o;
    o.measure_stock = true;
    return o;
  }());
  rocksdb::Options options(rocksdb::DBOptions(), cf);
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.max_background_jobs = 2;
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = sst::OpenDb(options, dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  const Real before = Now();
  for (int f = 0; f < flushes && s.ok(); ++f) {
    for (int k = 0; k < keys && s.ok(); ++k) {
      const int i = f * keys + k;
      s = db->Put(rocksdb::WriteOptions(), absl::StrFormat("key%08d", i), Value(i, value_size));
    }
    if (s.ok()) s = db->Flush(rocksdb::FlushOptions());
  }
  EXPECT_TRUE(s.ok()) << s.ToString();
  const Real after = Now();
  db.reset();
  return Real{after.zstd_cctx - before.zstd_cctx, after.deflate - before.deflate};
}

class RealCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef ROCKPOOL_REQUIRE_UPSTREAM
    if (kLinkedMajor < 10 || (kLinkedMajor == 10 && kLinkedMinor < 4)) {
      GTEST_SKIP() << "linked with RocksDB " << Linked()
                   << ", not an upstream install: set ROCKPOOL_ROCKSDB_PREFIX (bazel "
                      "--output_base=... test --repo_env=ROCKPOOL_ROCKSDB_PREFIX=/path/to/install "
                      "//tests/tools/sst_replay:upstream_real_calls_test) to check the 10.4+/11.x "
                      "patterns against real calls";
    }
#endif
  }

  // Replays `dir` (pattern detected from its OPTIONS file) and checks the
  // stock counts against `real`.
  void Check(const std::string& dir, const Real& real) {
    Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--progress=false", dir});
    ASSERT_EQ(o.code, 0) << o.err;
    auto kv = Inspect("json", o.out);
    EXPECT_EQ(Str(kv, "stock_pattern.pattern"), ExpectedPattern());
    EXPECT_EQ(Str(kv, "stock_pattern.rocksdb_version"), Linked());
    EXPECT_THAT(Str(kv, "stock_pattern.header"), HasSubstr("the RocksDB that last opened the DB"));
    const double zstd = Num(kv, "blocks.stock.pool_zstd_compress_created");
    const double deflate = Num(kv, "blocks.stock.pool_deflate_created");
    std::printf(
        "RocksDB %s, %s: real zstd CCtx %llu, deflate %llu; sst_replay stock (pattern %s) "
        "zstd CCtx %.0f, deflate %.0f\n",
        Linked().c_str(), dir.c_str(), static_cast<unsigned long long>(real.zstd_cctx),
        static_cast<unsigned long long>(real.deflate), ExpectedPattern().c_str(), zstd, deflate);
    EXPECT_EQ(zstd, static_cast<double>(real.zstd_cctx));
    EXPECT_NEAR(deflate, static_cast<double>(real.deflate),
                0.01 * static_cast<double>(real.deflate));
  }
};

TEST_F(RealCallsTest, SstFilesZstdAndZlib) {
  for (auto type : {rocksdb::kZSTD, rocksdb::kZlibCompression}) {
    const std::string dir = absl::StrCat(CliTempDir(), "/real_sst_", type);
    rocksdb::ColumnFamilyOptions cf;
    cf.compression = type;
    cf.write_buffer_size = 64 << 20;
    const Real real = WriteDb(dir, cf, 4, 4000, 200);
    EXPECT_GT(real.zstd_cctx + real.deflate, 0u);
    Check(dir, real);
  }
}

// Parallel compression: compression_opts.parallel_threads is recorded only
// in the OPTIONS file. 7.8.3 (6.29 to 10.3) creates a CCtx per thread per
// file; 11.x its data working area plus one per worker thread, beside the
// index working area (stock_patterns.h). sst_replay reads the threads from
// OPTIONS and its stock counts must still equal the real ones.
TEST_F(RealCallsTest, SstFilesZstdWithParallelCompression) {
  if (ExpectedPattern() == "10.4") {
    GTEST_SKIP() << "RocksDB " << Linked()
                 << ": pattern 10.4 does not replay parallel compression (a lower bound)";
  }
  const std::string dir = absl::StrCat(CliTempDir(), "/real_sst_parallel");
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = rocksdb::kZSTD;
  cf.compression_opts.parallel_threads = 3;
  cf.write_buffer_size = 64 << 20;
  const Real real = WriteDb(dir, cf, 3, 4000, 200);
  EXPECT_GE(real.zstd_cctx, 3u * 3u);  // 3 files, at least a context per thread each
  Check(dir, real);
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--progress=false", dir});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_THAT(Str(kv, "stock_pattern.note.0"),
              HasSubstr("column family \"default\": compression_opts.parallel_threads=3: stock "
                        "replays"));
}

TEST_F(RealCallsTest, BlobFilesZstdAndZlib) {
  for (auto type : {rocksdb::kZSTD, rocksdb::kZlibCompression}) {
    const std::string dir = absl::StrCat(CliTempDir(), "/real_blob_", type);
    rocksdb::ColumnFamilyOptions cf;
    cf.compression = rocksdb::kNoCompression;  // the SSTs: only blob references
    cf.enable_blob_files = true;
    cf.min_blob_size = 512;
    cf.blob_compression_type = type;
    cf.write_buffer_size = 64 << 20;
    const Real real = WriteDb(dir, cf, 3, 500, 2048);
    EXPECT_GE(real.zstd_cctx + real.deflate, 3u);
    Check(dir, real);
  }
}

// Runs compaction mode on `dir` and checks what holds for every RocksDB:
// the linked one ran, and pooled wrote the same bytes as stock.
std::map<std::string, std::string> CompactionReport(const std::string& dir) {
  Outcome o = Replay({"--mode=compaction", "--repeat=1", "--json", "--progress=false", dir});
  EXPECT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "compaction.stock_is"), "RocksDB " + Linked());
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  return kv;
}

// The pool that counts the contexts of `type`'s compression.
std::string CreatedMetric(rocksdb::CompressionType type) {
  return type == rocksdb::kZSTD ? "pool_zstd_compress_created" : "pool_deflate_created";
}

// Compaction mode runs the linked RocksDB: on 7.8.3 the
// legacy face pools everything; on >= 10.4, stock is the built-in manager
// and pooled is compression_manager=rockpool for SST blocks (plus the legacy
// face for blobs). Either way the outputs are byte-identical and the pooled
// run creates at most a couple of contexts per pool.
TEST_F(RealCallsTest, CompactionModeRunsTheLinkedRocksDb) {
  const bool native_api = ROCKPOOL_ROCKSDB_NATIVE_API != 0;  // @rocksdb's define
  for (auto type : {rocksdb::kZSTD, rocksdb::kZlibCompression}) {
    const std::string dir = absl::StrCat(CliTempDir(), "/compaction_sst_", type);
    rocksdb::ColumnFamilyOptions cf;
    cf.compression = type;
    cf.write_buffer_size = 64 << 20;
    WriteDb(dir, cf, 4, 4000, 200);
    auto kv = CompactionReport(dir);
    EXPECT_GT(Num(kv, "compaction.compared_blocks"), 100);
    EXPECT_THAT(Str(kv, "compaction.note.0"),
                HasSubstr("compaction mode runs RocksDB " + Linked()));
    EXPECT_THAT(Str(kv, "compaction.note.0"),
                HasSubstr(native_api ? "pooled = compression_manager={id=rockpool;"
                                     : "pooled = listeners={id=rockpool;"));
    const std::string created = CreatedMetric(type);
    const double stock_created = Num(kv, "compaction.stock." + created);
    const double pooled_created = Num(kv, "compaction.pooled." + created);
    std::printf("RocksDB %s compaction mode, %s: stock %s %.0f, pooled %.0f, native leases %.0f\n",
                Linked().c_str(), dir.c_str(), created.c_str(), stock_created, pooled_created,
                Num(kv, "compaction.pooled.native_leases"));
    EXPECT_GE(stock_created, 1);
    EXPECT_LE(pooled_created, 2);
    EXPECT_EQ(Num(kv, "compaction.stock.native_leases"), 0);
    if (native_api) {
      // SST blocks went through the native manager's pools: zstd leases a
      // working area per table builder (data and index), zlib one stream
      // per block.
      EXPECT_GE(Num(kv, "compaction.pooled.native_leases"), type == rocksdb::kZSTD ? 1 : 100);
    } else {
      EXPECT_EQ(Num(kv, "compaction.pooled.native_leases"), 0);
    }
    if (type == rocksdb::kZlibCompression) {
      // A deflate stream per block stock: pooling removes nearly all of it.
      EXPECT_GT(stock_created, 100);
      EXPECT_GT(Num(kv, "compaction.stock.codec_bytes"),
                20 * Num(kv, "compaction.pooled.codec_bytes"));
    }
  }
}

// Compaction mode's scratch family takes parallel_threads from the DB's
// OPTIONS too, so the real RocksDB creates its per-thread contexts (at
// least one per thread for the output file) and the pooled run leases them.
TEST_F(RealCallsTest, CompactionModeKeepsTheDbsParallelCompression) {
  const std::string dir = absl::StrCat(CliTempDir(), "/compaction_parallel");
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = rocksdb::kZSTD;
  cf.compression_opts.parallel_threads = 3;
  cf.write_buffer_size = 64 << 20;
  WriteDb(dir, cf, 3, 4000, 200);
  auto kv = CompactionReport(dir);
  const double stock_created = Num(kv, "compaction.stock.pool_zstd_compress_created");
  const double pooled_created = Num(kv, "compaction.pooled.pool_zstd_compress_created");
  std::printf("RocksDB %s compaction mode, parallel_threads=3: stock zstd CCtx %.0f, pooled %.0f\n",
              Linked().c_str(), stock_created, pooled_created);
  EXPECT_GE(stock_created, 3);
  EXPECT_LE(pooled_created, stock_created);
}

// The same for a DB with blob files (copied whole, every blob rewritten):
// zlib blobs run a deflate stream per blob in every version; zstd blobs a
// CCtx per blob up to 10.x and one per blob-file builder in 11.x.
TEST_F(RealCallsTest, CompactionModeRewritesBlobsOnTheLinkedRocksDb) {
  for (auto type : {rocksdb::kZSTD, rocksdb::kZlibCompression}) {
    const std::string dir = absl::StrCat(CliTempDir(), "/compaction_blob_", type);
    rocksdb::ColumnFamilyOptions cf;
    cf.compression = rocksdb::kNoCompression;
    cf.enable_blob_files = true;
    cf.min_blob_size = 512;
    cf.blob_compression_type = type;
    cf.write_buffer_size = 64 << 20;
    WriteDb(dir, cf, 3, 500, 2048);
    auto kv = CompactionReport(dir);
    EXPECT_EQ(Num(kv, "compaction.stock.output_blobs"), 1500);
    const std::string created = CreatedMetric(type);
    const double stock_created = Num(kv, "compaction.stock." + created);
    const double blob_files = Num(kv, "compaction.stock.output_blob_files");
    std::printf(
        "RocksDB %s compaction mode, blobs %s: stock %s %.0f (%.0f blob files), pooled %.0f\n",
        Linked().c_str(), dir.c_str(), created.c_str(), stock_created, blob_files,
        Num(kv, "compaction.pooled." + created));
    EXPECT_LE(Num(kv, "compaction.pooled." + created), 2);
    if (type == rocksdb::kZSTD && kLinkedMajor >= 11) {
      EXPECT_GE(stock_created, 1);
      EXPECT_LE(stock_created, blob_files);  // one per builder, shared by its files
    } else {
      EXPECT_GE(stock_created, 1500);  // one per blob
    }
  }
}

}  // namespace
}  // namespace rockpool
