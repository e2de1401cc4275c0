// Debian's RocksDB 7.8.3 (librocksdb.so, unmodified) drawing its zstd and zlib
// contexts from rockpool: this binary depends on //rocksdb_plugin:legacy, so
// librocksdb.so's ZSTD_createCCtx/deflateInit2_/... bind to rockpool.
//
// Per codec configuration:
//  - Stress: a DB opened from a DBOptions string with
//    listeners={id=rockpool;...}, max_background_jobs=2 and small write
//    buffers and files, so that writes trigger several flushes and
//    compactions in the background. Every key is read back, before and
//    after reopening. The pools' counters show reuse, the LOG shows
//    rockpool's lines.
//  - Identity: the same deterministic workload (explicit flushes, then a
//    full manual compaction) once pooled and once with every call forwarded
//    (stock); the data blocks of all SST files are compared raw, block by
//    block, with rockpool's SST reader (//tools/sst).
// And, for zlib and zstd: the bytes the codec libraries allocate during a
// compaction, stock versus pooled (see CompactionLibraryBytes below).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb_plugin/legacy/listener.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

namespace rockpool::legacy {
namespace {

using plugin_test::Key;
using plugin_test::Value;

struct Codec {
  std::string name;
  rocksdb::CompressionType type;
  int level = rocksdb::CompressionOptions::kDefaultCompressionLevel;
  int window_bits = -14;
  int strategy = 0;
  uint32_t max_dict_bytes = 0;  // dictionary compression (bottommost level)
};

void PrintTo(const Codec& c, std::ostream* os) { *os << c.name; }

RockpoolOptions Pooled() { return RockpoolOptions{}; }
RockpoolOptions Stock() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}
RockpoolOptions MeasureStock() {
  RockpoolOptions o;
  o.measure_stock = true;
  return o;
}

// Counts the flushes and compactions a DB ran.
class Counter : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "counter"; }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { ++flushes; }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override {
    ++compactions;
  }
  std::atomic<int> flushes{0};
  std::atomic<int> compactions{0};
};

rocksdb::Options CodecOptions(const Codec& c) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = c.type;
  o.compression_opts.level = c.level;
  o.compression_opts.window_bits = c.window_bits;
  o.compression_opts.strategy = c.strategy;
  o.compression_opts.max_dict_bytes = c.max_dict_bytes;
  o.max_background_jobs = 2;
  o.max_subcompactions = 1;
  return o;
}

std::unique_ptr<rocksdb::DB> Open(const rocksdb::Options& options, const std::string& dir) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

// Reads every key back (point lookups and a full scan).
void VerifyAll(rocksdb::DB* db, const std::vector<int>& versions) {
  int missing = 0, wrong = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    std::string got;
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), Key(static_cast<int>(i)), &got);
    if (!s.ok()) {
      ++missing;
    } else if (got != Value(static_cast<int>(i), versions[i])) {
      ++wrong;
    }
  }
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(wrong, 0);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const int i = static_cast<int>(n);
    if (it->key().ToString() != Key(i) || it->value().ToString() != Value(i, versions[n])) {
      ADD_FAILURE() << "scan: unexpected entry at " << n;
      break;
    }
    ++n;
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(n, versions.size());
}

class DbTest : public testing::TestWithParam<Codec> {
 protected:
  void TearDown() override { Configure(Stock()); }
};

// Background flushes and compactions with the listener from an options string.
TEST_P(DbTest, StressReadBackAndReuse) {
  const Codec& codec = GetParam();
  const std::string dir = plugin_test::NewTempDir("stress_" + codec.name);
  Configure(Stock());  // the listener must switch pooling on
  rocksdb::Options options = CodecOptions(codec);
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db_options;
  ASSERT_TRUE(rocksdb::GetDBOptionsFromString(
                  config, options, "listeners={id=rockpool;max_idle_per_key=8;idle_seconds=60}",
                  &db_options)
                  .ok());
  ASSERT_EQ(db_options.listeners.size(), 1u);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kPool);
  options = rocksdb::Options(db_options, options);
  auto counter = std::make_shared<Counter>();
  options.listeners.push_back(counter);
  options.write_buffer_size = 64 << 10;
  options.max_write_buffer_number = 3;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.level0_file_num_compaction_trigger = 2;

  const CompressionPoolsStats before = Stats();
  constexpr int kKeys = 6000;
  std::vector<int> versions(kKeys, -1);
  {
    std::unique_ptr<rocksdb::DB> db = Open(options, dir);
    ASSERT_NE(db, nullptr);
    std::vector<int> order(kKeys);
    for (int i = 0; i < kKeys; ++i) order[i] = i;
    std::mt19937 rng(42);
    std::shuffle(order.begin(), order.end(), rng);
    for (int round = 0; round < 2; ++round) {  // every key written twice
      for (int i : order) {
        ++versions[i];
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i, versions[i])).ok());
      }
      std::shuffle(order.begin(), order.end(), rng);
    }
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(plugin_test::WaitForBackgroundWork(db.get()));
    VerifyAll(db.get(), versions);
    EXPECT_GE(counter->flushes.load(), 5);
    EXPECT_GE(counter->compactions.load(), 2);
  }
  // (Reopening moves this LOG to LOG.old.*.)
  const auto active = plugin_test::LogLines(dir, "rockpool active:");
  ASSERT_FALSE(active.empty());
  EXPECT_NE(active[0].find("max_idle_per_key=8"), std::string::npos) << active[0];
  EXPECT_NE(active[0].find("zstd interposed, zlib interposed"), std::string::npos) << active[0];
  EXPECT_GE(plugin_test::LogLines(dir, "rockpool report: event=flush").size(), 5u);
  EXPECT_GE(plugin_test::LogLines(dir, "rockpool report: event=compaction").size(), 2u);
  {  // reopened: every block read through rockpool's decompression contexts
    std::unique_ptr<rocksdb::DB> db = Open(options, dir);
    ASSERT_NE(db, nullptr);
    VerifyAll(db.get(), versions);
  }
  const CompressionPoolsStats after = Stats();
  const PoolStats& c = codec.type == rocksdb::kZSTD ? after.zstd_compress : after.deflate;
  const PoolStats& c0 = codec.type == rocksdb::kZSTD ? before.zstd_compress : before.deflate;
  const uint64_t created = c.created - c0.created;
  const uint64_t reused = c.reused - c0.reused;
  EXPECT_GT(reused, 0u);
  EXPECT_GT(reused, created) << "created " << created << " reused " << reused;
  if (codec.type == rocksdb::kZlibCompression) {
    // One deflate per block, one inflate per block read: heavy reuse.
    EXPECT_GT(after.inflate.reused - before.inflate.reused, 1000u);
    EXPECT_LE(created, 16u);  // at most a few per key (max_background_jobs=2)
  }
  const OutstandingLeases out = Outstanding();
  EXPECT_EQ(out.deflate, 0);
  EXPECT_EQ(out.inflate, 0);
  EXPECT_EQ(out.zstd_compress, 0);
}

// The same deterministic workload, stock and pooled: identical data blocks.
absl::StatusOr<plugin_test::BlockComparison> RunIdentity(const Codec& codec) {
  rocksdb::Options options = CodecOptions(codec);
  options.disable_auto_compactions = true;
  options.write_buffer_size = 32 << 20;  // flushes only when asked
  options.target_file_size_base = 64 << 10;
  std::string dirs[2];
  for (int pooled = 0; pooled < 2; ++pooled) {
    Configure(pooled ? Pooled() : Stock());
    dirs[pooled] = plugin_test::NewTempDir(absl::StrCat("identity_", codec.name, "_", pooled));
    std::unique_ptr<rocksdb::DB> db = Open(options, dirs[pooled]);
    if (db == nullptr) return absl::InternalError("open failed");
    for (int i = 0; i < 4000; ++i) {
      const int k = (i * 7919) % 4000;
      if (!db->Put(rocksdb::WriteOptions(), Key(k), Value(k, 0)).ok()) {
        return absl::InternalError("put failed");
      }
      if (i % 1000 == 999 && !db->Flush(rocksdb::FlushOptions()).ok()) {
        return absl::InternalError("flush failed");
      }
    }
  }
  // Four L0 files each.
  absl::StatusOr<plugin_test::BlockComparison> flushed =
      plugin_test::CompareDataBlocks(dirs[0], dirs[1]);
  if (!flushed.ok()) return flushed.status();
  for (int pooled = 0; pooled < 2; ++pooled) {
    Configure(pooled ? Pooled() : Stock());
    std::unique_ptr<rocksdb::DB> db = Open(options, dirs[pooled]);
    if (db == nullptr) return absl::InternalError("reopen failed");
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    if (!db->CompactRange(cro, nullptr, nullptr).ok()) {
      return absl::InternalError("compaction failed");
    }
  }
  absl::StatusOr<plugin_test::BlockComparison> compacted =
      plugin_test::CompareDataBlocks(dirs[0], dirs[1]);
  if (!compacted.ok()) return compacted.status();
  compacted->files += flushed->files;
  compacted->data_blocks += flushed->data_blocks;
  compacted->compressed_blocks += flushed->compressed_blocks;
  compacted->files_with_dictionary += flushed->files_with_dictionary;
  return compacted;
}

TEST_P(DbTest, PooledDataBlocksAreIdenticalToStock) {
  const CompressionPoolsStats before = Stats();
  absl::StatusOr<plugin_test::BlockComparison> r = RunIdentity(GetParam());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->files, 6u);
  EXPECT_GT(r->data_blocks, 200u);
  EXPECT_GT(r->compressed_blocks, r->data_blocks * 9 / 10);  // really compressed
  if (GetParam().max_dict_bytes > 0) {
    EXPECT_GT(r->files_with_dictionary, 0u);
  }
  const PoolStats after = Stats().Total();
  EXPECT_GT(after.reused, before.Total().reused);
  std::cout << GetParam().name << ": " << r->files << " files (" << r->files_with_dictionary
            << " with a dictionary), " << r->data_blocks << " data blocks identical ("
            << r->compressed_blocks << " compressed)\n";
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, DbTest,
    testing::Values(Codec{"zstd_default", rocksdb::kZSTD}, Codec{"zstd_1", rocksdb::kZSTD, 1},
                    Codec{"zstd_9", rocksdb::kZSTD, 9},
                    Codec{"zlib_default", rocksdb::kZlibCompression},
                    Codec{"zlib_1", rocksdb::kZlibCompression, 1},
                    Codec{"zlib_9", rocksdb::kZlibCompression, 9},
                    Codec{"zlib_wb10_filtered", rocksdb::kZlibCompression, 6, -10, Z_FILTERED},
                    Codec{"zlib_wb15_huffman", rocksdb::kZlibCompression,
                          rocksdb::CompressionOptions::kDefaultCompressionLevel, -15,
                          Z_HUFFMAN_ONLY},
                    Codec{"zstd_dict", rocksdb::kZSTD,
                          rocksdb::CompressionOptions::kDefaultCompressionLevel, -14, 0, 8192},
                    Codec{"zlib_dict", rocksdb::kZlibCompression,
                          rocksdb::CompressionOptions::kDefaultCompressionLevel, -14, 0, 8192}),
    [](const testing::TestParamInfo<Codec>& info) { return info.param.name; });

// Bytes the codec libraries allocate during one compaction, stock vs pooled.
//
// Method: both runs count through rockpool's CountingAllocator, the exact
// bytes and calls zstd/zlib make. Stock is measure_stock mode: the
// interposers create and free a context exactly where stock RocksDB does
// (zero-capacity pools: nothing reused), so the counts are stock's.
// Pooled is the default mode. Both measure the second full compaction of one
// DB (the pool is as warm as in any running DB). The process first reads
// a compressed file once, so RocksDB's own per-core zstd DCtx cache exists in
// both runs (stock RocksDB creates it once per process).
struct Usage {
  uint64_t bytes = 0;
  uint64_t calls = 0;
  uint64_t leases = 0;
  uint64_t created = 0;
};

Usage CompactionUsage(const Codec& codec, const RockpoolOptions& mode, const std::string& name) {
  Configure(mode);
  rocksdb::Options options = CodecOptions(codec);
  options.disable_auto_compactions = true;
  options.write_buffer_size = 32 << 20;
  options.target_file_size_base = 64 << 10;
  const std::string dir = plugin_test::NewTempDir(name);
  std::unique_ptr<rocksdb::DB> db = Open(options, dir);
  if (db == nullptr) return {};
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  // Two rounds of writes, flushes and a full compaction; the second
  // compaction is measured (the first meets zstd's size classes for the
  // first time, as any running DB's first compaction does).
  for (int version = 0; version < 2; ++version) {
    for (int i = 0; i < 8000; ++i) {
      const int k = (i * 7919) % 8000;
      EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), Key(k), Value(k, version)).ok());
      if (i % 2000 == 1999) {
        EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
      }
    }
    if (version == 0) {
      EXPECT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    }
  }
  const PoolStats before = Stats().Total();
  EXPECT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
  const PoolStats after = Stats().Total();
  Usage u;
  u.bytes = after.library.bytes_allocated - before.library.bytes_allocated;
  u.calls = after.library.allocations - before.library.allocations;
  u.leases = (after.created + after.reused) - (before.created + before.reused);
  u.created = after.created - before.created;
  return u;
}

class CompactionLibraryBytes : public testing::TestWithParam<Codec> {
 protected:
  void TearDown() override { Configure(Stock()); }
};

TEST_P(CompactionLibraryBytes, DropByAtLeast95Percent) {
  const Codec& codec = GetParam();
  {  // warm-up: RocksDB's per-core caches
    Configure(Stock());
    (void)CompactionUsage(codec, Stock(), "warmup_" + codec.name);
  }
  const Usage stock = CompactionUsage(codec, MeasureStock(), "stock_" + codec.name);
  const Usage pooled = CompactionUsage(codec, Pooled(), "pooled_" + codec.name);
  std::cout << codec.name << " compaction: codec library bytes stock " << stock.bytes << " in "
            << stock.calls << " calls (" << stock.leases << " contexts), pooled " << pooled.bytes
            << " in " << pooled.calls << " calls (" << pooled.leases << " leases)\n";
  RecordProperty("stock_bytes", std::to_string(stock.bytes));
  RecordProperty("pooled_bytes", std::to_string(pooled.bytes));
  EXPECT_GT(stock.leases, 0u);
  EXPECT_EQ(stock.leases, pooled.leases);  // same work
  EXPECT_EQ(stock.created, stock.leases);  // stock: one context per lease
  EXPECT_EQ(pooled.created, 0u);           // pooled: every lease reused
  EXPECT_GT(stock.bytes, 0u);
  // zstd too: its one-shot compress calls run on size-class contexts
  // (rocksdb_plugin/legacy/zstd_routing.cc), so a kept context never resizes.
  // Before that, zstd's shrink/regrow inside kept contexts left 23% here.
  EXPECT_LE(pooled.bytes * 20, stock.bytes) << "pooled must be <= 5% of stock";
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompactionLibraryBytes,
                         testing::Values(Codec{"zlib_default", rocksdb::kZlibCompression},
                                         Codec{"zstd_default", rocksdb::kZSTD}),
                         [](const testing::TestParamInfo<Codec>& info) { return info.param.name; });

}  // namespace
}  // namespace rockpool::legacy
