// RocksDB 7.8.3's compressed secondary cache with rockpool (legacy face):
// CompressedSecondaryCache::Insert compresses every entry with a new
// compression context (a ZSTD_CCtx, or a deflateInit2) and Lookup
// decompresses it (zstd: the per-core DCtx; zlib: an inflateInit2 per entry).
//
// Per codec (zstd, zlib): uncompressed SST files (so the codecs serve the
// secondary cache only) read through a 256 KiB primary block cache backed by
// an 8 MiB compressed secondary cache. Every key is read four times over: a
// block's first eviction from the primary cache only leaves a placeholder in
// the secondary, its second inserts the compressed block, later reads hit it.
// Asserted: SECONDARY_CACHE_HITS > 0, every value correct, and the pool served
// many cache entries from a handful of contexts.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

namespace rockpool::legacy {
namespace {

using plugin_test::Key;
using plugin_test::Value;

constexpr int kKeys = 4000;
constexpr size_t kValueSize = 1000;

struct CacheCodec {
  std::string name;
  rocksdb::CompressionType type;
};

void PrintTo(const CacheCodec& c, std::ostream* os) { *os << c.name; }

class SecondaryCacheTest : public testing::TestWithParam<CacheCodec> {
 protected:
  void TearDown() override {
    RockpoolOptions off;
    off.enabled = false;
    Configure(off);
  }
};

uint64_t Leases(const PoolStats& now, const PoolStats& before) {
  return (now.created + now.reused) - (before.created + before.reused);
}

TEST_P(SecondaryCacheTest, EntriesCompressedWithPooledContexts) {
  const CacheCodec& codec = GetParam();
  Configure(RockpoolOptions{});
  const std::string dir = plugin_test::NewTempDir("secondary_cache_" + codec.name);

  rocksdb::CompressedSecondaryCacheOptions secondary_options;
  secondary_options.capacity = 8 << 20;
  secondary_options.compression_type = codec.type;
  rocksdb::LRUCacheOptions primary_options;
  primary_options.capacity = 256 << 10;
  primary_options.num_shard_bits = 0;
  primary_options.secondary_cache = rocksdb::NewCompressedSecondaryCache(secondary_options);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(primary_options);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = rocksdb::kNoCompression;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.statistics = rocksdb::CreateDBStatistics();

  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i, 0, kValueSize)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());

  const CompressionPoolsStats before = Stats();
  int wrong = 0;
  for (int pass = 0; pass < 4; ++pass) {
    for (int i = 0; i < kKeys; ++i) {
      std::string got;
      if (!db->Get(rocksdb::ReadOptions(), Key(i), &got).ok() || got != Value(i, 0, kValueSize)) {
        ++wrong;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  const uint64_t hits = options.statistics->getTickerCount(rocksdb::SECONDARY_CACHE_HITS);
  EXPECT_GT(hits, 0u);

  const CompressionPoolsStats after = Stats();
  const PoolStats& c_now = codec.type == rocksdb::kZSTD ? after.zstd_compress : after.deflate;
  const PoolStats& c_before = codec.type == rocksdb::kZSTD ? before.zstd_compress : before.deflate;
  const PoolStats& d_now = codec.type == rocksdb::kZSTD ? after.zstd_decompress : after.inflate;
  const PoolStats& d_before =
      codec.type == rocksdb::kZSTD ? before.zstd_decompress : before.inflate;
  const uint64_t inserts = Leases(c_now, c_before);
  const uint64_t created = c_now.created - c_before.created;
  std::printf(
      "%s: secondary cache hits %llu; compress leases %llu from %llu new contexts, "
      "%llu library bytes; decompress leases %llu from %llu new contexts\n",
      codec.name.c_str(), static_cast<unsigned long long>(hits),
      static_cast<unsigned long long>(inserts), static_cast<unsigned long long>(created),
      static_cast<unsigned long long>(c_now.library.bytes_allocated -
                                      c_before.library.bytes_allocated),
      static_cast<unsigned long long>(Leases(d_now, d_before)),
      static_cast<unsigned long long>(d_now.created - d_before.created));
  // Every real insert into the secondary cache compressed with a leased
  // context; a few contexts served them all.
  EXPECT_GT(inserts, 100u);
  EXPECT_LE(created, 2u);
  if (codec.type == rocksdb::kZlibCompression) {
    // zlib: one inflate stream per secondary-cache hit in stock RocksDB.
    EXPECT_GE(Leases(d_now, d_before), hits);
    EXPECT_LE(d_now.created - d_before.created, 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, SecondaryCacheTest,
                         testing::Values(CacheCodec{"zstd", rocksdb::kZSTD},
                                         CacheCodec{"zlib", rocksdb::kZlibCompression}),
                         [](const testing::TestParamInfo<CacheCodec>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace rockpool::legacy
