// What the native face cannot reach in RocksDB >= 10.4, and the legacy
// face's interposition that can: blob files and the compressed secondary
// cache call GetBuiltinV2CompressionManager() directly, whatever
// compression_manager says; the built-in then calls ZSTD_createCCtx /
// deflateInit2_ / inflateInit2_ itself. This binary links upstream
// librocksdb.a statically with //rocksdb_plugin:legacy, so those calls bind
// to rockpool's definitions at link time.
//
//  - Interposition alone (listeners={id=rockpool}, built-in manager): SST
//    blocks, blob records and compressed secondary cache entries all draw
//    their contexts from the interposed pools, with reuse.
//  - Together with the native face (compression_manager=rockpool plus the
//    listener): SST blocks come from the native manager's pools and never
//    reach the interposer (rockpool's own contexts are created with custom
//    allocators, which the interposer forwards untouched); blob records go
//    through the interposer. Every key reads back in both.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "rocksdb/advanced_compression.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/secondary_cache.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

namespace fs = std::filesystem;

struct Codec {
  std::string name;
  rocksdb::CompressionType type;
};

std::string Key(int i) { return "key" + std::to_string(i * 7919 % 100003); }
std::string Value(int i, size_t size) { return rockpool::testing::SemiCompressible(size, i); }

// DB options from a string, as a user writes them: the listener switches the
// interposed pools on for the process.
rocksdb::Options OptionsFor(const Codec& c, bool blobs, bool native) {
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db;
  EXPECT_TRUE(rocksdb::GetDBOptionsFromString(
                  config, rocksdb::DBOptions(),
                  "create_if_missing=true;max_background_jobs=2;listeners={id=rockpool}", &db)
                  .ok());
  const std::string type = c.type == rocksdb::kZSTD ? "kZSTD" : "kZlibCompression";
  std::string cf_text = "compression=" + type + ";bottommost_compression=" + type +
                        ";write_buffer_size=262144;target_file_size_base=524288;"
                        "level0_file_num_compaction_trigger=2;max_bytes_for_level_base=1048576";
  if (blobs) {
    cf_text += ";enable_blob_files=true;min_blob_size=512;blob_compression_type=" + type +
               ";enable_blob_garbage_collection=true;blob_garbage_collection_age_cutoff=1.0";
  }
  if (native) cf_text += ";compression_manager={id=rockpool;max_idle_per_key=8}";
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
      config, rocksdb::ColumnFamilyOptions(), cf_text, &cf);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return rocksdb::Options(db, cf);
}

PoolStats Interposed() { return legacy::Stats().Total(); }

uint64_t Leases(const PoolStats& s) { return s.created + s.reused; }

PoolStats Minus(const PoolStats& a, const PoolStats& b) {
  PoolStats d;
  d.created = a.created - b.created;
  d.reused = a.reused - b.reused;
  return d;
}

// Fills (small values in SSTs, large ones in blobs), flushes, compacts and
// reads back every key.
void FillCompactRead(const std::string& dir, const rocksdb::Options& options, int keys,
                     size_t big) {
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < keys; ++i) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i, i % 2 ? big : 100)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
  std::string v;
  for (int i = 0; i < keys; ++i) {
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(i), &v).ok()) << Key(i);
    ASSERT_EQ(v, Value(i, i % 2 ? big : 100)) << Key(i);
  }
  ASSERT_TRUE(db->Close().ok());
}

class InterposeTest : public ::testing::TestWithParam<Codec> {};

TEST_P(InterposeTest, InterposedPoolsServeBlobFilesAndSstBlocks) {
  const Codec& c = GetParam();
  const legacy::Interposition where = legacy::CheckInterposition();
  ASSERT_TRUE(where.zstd && where.zlib) << where.ToString();
  const PoolStats before = Interposed();
  const std::string dir = ::rockpool::testing::FreshTestPath("interpose_blobs_" + c.name);
  ASSERT_NO_FATAL_FAILURE(
      FillCompactRead(dir, OptionsFor(c, /*blobs=*/true, /*native=*/false), 4000, 2048));
  const PoolStats d = Minus(Interposed(), before);
  std::printf("%s interposition alone (SST + blobs): %llu leases, %llu created\n", c.name.c_str(),
              static_cast<unsigned long long>(Leases(d)),
              static_cast<unsigned long long>(d.created));
  // zlib: RocksDB 11.8.1 runs deflateInit2/inflateInit2 per blob (2,000
  // blobs written, rewritten by GC, read back): thousands of leases from a
  // few contexts. zstd: 11.8.1 keeps one working area (CCtx) per blob file
  // and reads with its per-core DCtx cache, so there is little to pool.
  if (c.type == rocksdb::kZlibCompression) {
    EXPECT_GT(Leases(d), 2000u);
    EXPECT_LT(d.created * 20, Leases(d)) << "contexts are reused across blobs";
  } else {
    EXPECT_GT(Leases(d), 0u);
    EXPECT_LT(d.created, Leases(d));
  }
  bool blob_files = false;
  for (const auto& e : fs::directory_iterator(dir)) blob_files |= e.path().extension() == ".blob";
  EXPECT_TRUE(blob_files);
}

TEST_P(InterposeTest, NativeFaceForSstsInterpositionForBlobsInOneProcess) {
  const Codec& c = GetParam();
  // SSTs only: the native manager's contexts never reach the interposer.
  {
    const PoolStats before = Interposed();
    rocksdb::Options options = OptionsFor(c, /*blobs=*/false, /*native=*/true);
    auto* native =
        static_cast<native::RockpoolCompressionManager*>(options.compression_manager.get());
    ASSERT_NE(native, nullptr);
    ASSERT_STREQ(native->Name(), "rockpool");
    ASSERT_NO_FATAL_FAILURE(FillCompactRead(
        ::rockpool::testing::FreshTestPath("both_sst_" + c.name), options, 6000, 100));
    const PoolStats d = Minus(Interposed(), before);
    const uint64_t native_leases = Leases(native->pools()->stats().Total());
    std::printf("%s native SSTs + interposer: native %llu leases, interposed %llu\n",
                c.name.c_str(), static_cast<unsigned long long>(native_leases),
                static_cast<unsigned long long>(Leases(d)));
    EXPECT_GT(native_leases, 100u);
    EXPECT_EQ(Leases(d), 0u) << "SST blocks went through the interposer, not the native face";
  }
  // SSTs and blobs: each face serves its part.
  {
    const PoolStats before = Interposed();
    rocksdb::Options options = OptionsFor(c, /*blobs=*/true, /*native=*/true);
    auto* native =
        static_cast<native::RockpoolCompressionManager*>(options.compression_manager.get());
    ASSERT_NO_FATAL_FAILURE(FillCompactRead(
        ::rockpool::testing::FreshTestPath("both_blobs_" + c.name), options, 4000, 2048));
    const PoolStats d = Minus(Interposed(), before);
    const uint64_t native_leases = Leases(native->pools()->stats().Total());
    std::printf(
        "%s native SSTs + interposed blobs: native %llu leases, interposed %llu (%llu created)\n",
        c.name.c_str(), static_cast<unsigned long long>(native_leases),
        static_cast<unsigned long long>(Leases(d)), static_cast<unsigned long long>(d.created));
    EXPECT_GT(native_leases, 0u);
    EXPECT_GT(Leases(d), 0u) << "blob records are compressed by the built-in, interposed";
    if (c.type == rocksdb::kZlibCompression) {
      EXPECT_GT(Leases(d), 2000u) << "zlib: a context per blob";
      EXPECT_LT(d.created * 20, Leases(d));
    }
  }
}

TEST_P(InterposeTest, CompressedSecondaryCacheEntriesUseInterposedContexts) {
  const Codec& c = GetParam();
  rocksdb::Options options = OptionsFor(c, /*blobs=*/false, /*native=*/true);
  rocksdb::CompressedSecondaryCacheOptions secondary;
  secondary.capacity = 8 << 20;
  secondary.compression_type = c.type;
  rocksdb::LRUCacheOptions primary;
  primary.capacity = 64 << 10;
  primary.secondary_cache = rocksdb::NewCompressedSecondaryCache(secondary);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(primary);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.statistics = rocksdb::CreateDBStatistics();
  const std::string dir = ::rockpool::testing::FreshTestPath("interpose_secondary_" + c.name);
  ASSERT_NO_FATAL_FAILURE(FillCompactRead(dir, options, 6000, 100));
  // Read everything three times: the first eviction of a block only leaves a
  // placeholder in the secondary cache, the second inserts it compressed.
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, &db).ok());
  const PoolStats before = Interposed();
  std::string v;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 6000; ++i) {
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(i), &v).ok());
      ASSERT_EQ(v, Value(i, 100));
    }
  }
  const PoolStats d = Minus(Interposed(), before);
  const uint64_t hits = options.statistics->getTickerCount(rocksdb::SECONDARY_CACHE_HITS);
  std::printf("%s compressed secondary cache: %llu hits, interposed %llu leases (%llu created)\n",
              c.name.c_str(), static_cast<unsigned long long>(hits),
              static_cast<unsigned long long>(Leases(d)),
              static_cast<unsigned long long>(d.created));
  EXPECT_GT(hits, 0u);
  // zlib: every compressed entry inserted or read back runs deflateInit2 /
  // inflateInit2 in 11.8.1; zstd reads borrow the per-core DCtx cache.
  EXPECT_GT(Leases(d), 0u);
  if (c.type == rocksdb::kZlibCompression) {
    EXPECT_GT(Leases(d) * 2, hits) << "a context per secondary-cache entry";
    EXPECT_LT(d.created * 20, Leases(d));
  }
  ASSERT_TRUE(db->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(Codecs, InterposeTest,
                         ::testing::Values(Codec{"zstd", rocksdb::kZSTD},
                                           Codec{"zlib", rocksdb::kZlibCompression}),
                         [](const ::testing::TestParamInfo<Codec>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace rockpool
