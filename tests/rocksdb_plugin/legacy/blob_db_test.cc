// Integrated BlobDB (Debian's RocksDB 7.8.3) with rockpool: RocksDB builds a
// compression context for every blob it writes (BlobFileBuilder::
// CompressBlobIfNeeded: a ZSTD_CCtx, or a deflateInit2) and, for zlib, an
// inflateInit2 for every blob it reads.
//
// Per codec (zstd, zlib blob compression), one deterministic workload (2 KiB
// values, min_blob_size 512, 256 KiB blob files, three rounds of writes and
// flushes, two full compactions with blob GC at age cutoff 1.0) runs stock
// (pooling off) and pooled. Asserted: GC ran (BLOB_DB_GC_NUM_KEYS_RELOCATED >
// 0); every key reads back; the blob files of both DBs are byte-identical;
// every blob record (//tools/sst's blob file reader, CRCs verified) holds a
// fresh-context compression of one version of its key's value with RocksDB's
// blob options (default CompressionOptions, format version 2); the pool
// served many blobs from a handful of contexts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "compression/zlib_block_codec.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"
#include "tools/sst/blob_file.h"

namespace rockpool::legacy {
namespace {

using plugin_test::Key;
using plugin_test::Value;

constexpr int kRounds = 3;
constexpr int kKeysPerRound = 600;
constexpr size_t kValueSize = 2048;

struct BlobCodec {
  std::string name;
  rocksdb::CompressionType type;
};

void PrintTo(const BlobCodec& c, std::ostream* os) { *os << c.name; }

rocksdb::Options BlobOptions(const BlobCodec& codec) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;  // SSTs: the pool counts blobs only
  o.enable_blob_files = true;
  o.min_blob_size = 512;
  o.blob_compression_type = codec.type;
  o.blob_file_size = 256 << 10;
  o.enable_blob_garbage_collection = true;
  o.blob_garbage_collection_age_cutoff = 1.0;
  o.write_buffer_size = 16 << 20;  // explicit flushes only: deterministic file numbers
  o.disable_auto_compactions = true;
  o.statistics = rocksdb::CreateDBStatistics();
  return o;
}

std::vector<std::string> BlobFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".blob") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct RunResult {
  std::string dir;
  uint64_t relocated = 0;
  PoolStats compress;    // zstd CCtx or deflate pool, this run
  PoolStats decompress;  // inflate pool (zlib), this run
};

PoolStats Delta(const PoolStats& a, const PoolStats& b) {
  PoolStats d;
  d.created = a.created - b.created;
  d.reused = a.reused - b.reused;
  d.library.bytes_allocated = a.library.bytes_allocated - b.library.bytes_allocated;
  return d;
}

RunResult RunWorkload(const BlobCodec& codec, const RockpoolOptions& options,
                      const std::string& name) {
  RunResult r;
  r.dir = plugin_test::NewTempDir("blob_" + codec.name + "_" + name);
  Configure(options);
  const CompressionPoolsStats before = Stats();
  rocksdb::Options db_options = BlobOptions(codec);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, r.dir, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return r;
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kKeysPerRound; ++i) {
      const int key = round * (kKeysPerRound / 2) + i;  // half overwrites
      EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), Key(key), Value(key, round, kValueSize)).ok());
    }
    EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    if (round > 0) {
      rocksdb::CompactRangeOptions compact;
      compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
      EXPECT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
    }
  }
  // Every key, its last version (read through the blob files).
  const int total = (kRounds - 1) * (kKeysPerRound / 2) + kKeysPerRound;
  int wrong = 0;
  for (int key = 0; key < total; ++key) {
    const int last = std::min(kRounds - 1, key / (kKeysPerRound / 2));
    std::string got;
    if (!db->Get(rocksdb::ReadOptions(), Key(key), &got).ok() ||
        got != Value(key, last, kValueSize)) {
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << name;
  r.relocated = db_options.statistics->getTickerCount(rocksdb::BLOB_DB_GC_NUM_KEYS_RELOCATED);
  const CompressionPoolsStats after = Stats();
  if (codec.type == rocksdb::kZSTD) {
    r.compress = Delta(after.zstd_compress, before.zstd_compress);
  } else {
    r.compress = Delta(after.deflate, before.deflate);
    r.decompress = Delta(after.inflate, before.inflate);
  }
  db.reset();
  return r;
}

class BlobDbTest : public testing::TestWithParam<BlobCodec> {
 protected:
  void TearDown() override {
    RockpoolOptions off;
    off.enabled = false;
    Configure(off);
  }
};

TEST_P(BlobDbTest, BlobsIdenticalToFreshContextsAndPooledPerBlob) {
  const BlobCodec& codec = GetParam();
  RockpoolOptions stock;
  stock.enabled = false;
  const RunResult plain = RunWorkload(codec, stock, "stock");
  const RunResult pooled = RunWorkload(codec, RockpoolOptions{}, "pooled");
  ASSERT_FALSE(HasFailure());

  EXPECT_GT(plain.relocated, 0u);
  EXPECT_GT(pooled.relocated, 0u);
  EXPECT_EQ(plain.relocated, pooled.relocated);

  // Byte-identical blob files, same names.
  const std::vector<std::string> files = BlobFiles(pooled.dir);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(BlobFiles(plain.dir), files);

  // Every record: a fresh-context compression of one version of its value.
  PoolOptions fresh_options;
  fresh_options.max_retained_per_key = 0;  // every lease a new context
  CompressionPools fresh(fresh_options);
  BlockCodecs codecs(&fresh);
  size_t records = 0;
  for (const std::string& name : files) {
    EXPECT_EQ(plugin_test::ReadFile(plain.dir + "/" + name),
              plugin_test::ReadFile(pooled.dir + "/" + name))
        << name;
    // //tools/sst's blob file reader: header, records, footer, every CRC.
    const std::string data = plugin_test::ReadFile(pooled.dir + "/" + name);
    absl::StatusOr<sst::BlobFile> blob = sst::ParseBlobFile(data, name);
    ASSERT_TRUE(blob.ok()) << blob.status();
    EXPECT_EQ(blob->header.compression, static_cast<uint8_t>(codec.type)) << name;
    EXPECT_TRUE(blob->footer.has_value()) << name;  // closed files
    for (const sst::BlobRecord& rec : blob->records) {
      ++records;
      const std::string key_text(rec.key);
      const int key = std::stoi(key_text.substr(key_text.find_first_of("0123456789")));
      bool matched = false;
      for (int version = 0; version < kRounds && !matched; ++version) {
        std::string want;
        const std::string value = Value(key, version, kValueSize);
        absl::Status s =
            codec.type == rocksdb::kZSTD
                ? codecs.zstd().Compress(
                      value, rocksdb::CompressionOptions::kDefaultCompressionLevel, nullptr, &want)
                : codecs.zlib().Compress(value, ZlibBlockOptions{}, &want);
        ASSERT_TRUE(s.ok()) << s;
        matched = want == rec.value;
      }
      EXPECT_TRUE(matched) << name << ": record of " << key_text;
    }
  }
  EXPECT_GT(records, static_cast<size_t>(kKeysPerRound));
  EXPECT_EQ(fresh.stats().Total().reused, 0u);

  // Per-blob reuse: each blob written leased a context (flushes and GC
  // rewrites write >= kRounds * kKeysPerRound blobs), served by a few.
  const uint64_t leases = pooled.compress.created + pooled.compress.reused;
  std::printf(
      "%s: %zu blob files, %zu records; GC relocated %llu; compress leases %llu from %llu "
      "contexts, %llu library bytes\n",
      codec.name.c_str(), files.size(), records, static_cast<unsigned long long>(pooled.relocated),
      static_cast<unsigned long long>(leases),
      static_cast<unsigned long long>(pooled.compress.created),
      static_cast<unsigned long long>(pooled.compress.library.bytes_allocated));
  EXPECT_GE(leases, static_cast<uint64_t>(kRounds * kKeysPerRound));
  EXPECT_LE(pooled.compress.created, 4u);
  if (codec.type == rocksdb::kZlibCompression) {
    // Reads inflate every blob with a new stream in stock RocksDB.
    const uint64_t inflates = pooled.decompress.created + pooled.decompress.reused;
    std::printf("%s: inflate leases %llu from %llu contexts\n", codec.name.c_str(),
                static_cast<unsigned long long>(inflates),
                static_cast<unsigned long long>(pooled.decompress.created));
    EXPECT_GE(inflates, static_cast<uint64_t>(kKeysPerRound));
    EXPECT_LE(pooled.decompress.created, 4u);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, BlobDbTest,
                         testing::Values(BlobCodec{"zstd", rocksdb::kZSTD},
                                         BlobCodec{"zlib", rocksdb::kZlibCompression}),
                         [](const testing::TestParamInfo<BlobCodec>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace rockpool::legacy
