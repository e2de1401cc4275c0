// The native face against upstream RocksDB (>= 10.4): real DBs with flushes
// and compactions under max_background_jobs=2, every key verified, data
// blocks byte-identical to the built-in compressors', stock sst_dump
// reading the files, options strings and OPTIONS files, bad options, and
// the compaction's codec-library bytes vs the built-in manager.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compression/block_codecs.h"
#include "rocksdb/advanced_compression.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/native/library_counters.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/sst_file.h"

namespace rockpool::native {
namespace {

namespace fs = std::filesystem;

struct CodecCase {
  std::string name;
  rocksdb::CompressionType type;
  int level = rocksdb::CompressionOptions::kDefaultCompressionLevel;
  int window_bits = -14;
  int strategy = 0;
  uint32_t max_dict_bytes = 0;
  uint32_t zstd_max_train_bytes = 0;
  uint32_t parallel_threads = 1;
  size_t block_size = 4096;
};

rocksdb::CompressionOptions CompressionOptionsFor(const CodecCase& c) {
  rocksdb::CompressionOptions o;
  o.level = c.level;
  o.window_bits = c.window_bits;
  o.strategy = c.strategy;
  o.max_dict_bytes = c.max_dict_bytes;
  o.zstd_max_train_bytes = c.zstd_max_train_bytes;
  o.parallel_threads = c.parallel_threads;
  o.enabled = true;
  return o;
}

rocksdb::Options DbOptions(const CodecCase& c,
                           std::shared_ptr<rocksdb::CompressionManager> manager) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = c.type;
  options.bottommost_compression = c.type;
  options.compression_opts = CompressionOptionsFor(c);
  options.bottommost_compression_opts = CompressionOptionsFor(c);
  options.compression_manager = std::move(manager);
  options.write_buffer_size = 256 << 10;
  options.max_background_jobs = 2;
  options.level0_file_num_compaction_trigger = 2;
  options.target_file_size_base = 512 << 10;
  options.max_bytes_for_level_base = 1 << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = c.block_size;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

constexpr int kKeys = 12000;

std::string Key(int i) { return "key" + std::to_string(i * 7919 % 100003); }
std::string Value(int i) { return rockpool::testing::SemiCompressible(200, i); }

struct RunResult {
  AllocationCounts builtin_compaction;  // built-in library bytes during CompactRange
  AllocationCounts pooled_compaction;   // rockpool library bytes during CompactRange
  uint64_t leases = 0;
  uint64_t reused = 0;
};

AllocationCounts Delta(const AllocationCounts& a, const AllocationCounts& b) {
  AllocationCounts d;
  d.bytes_allocated = b.bytes_allocated - a.bytes_allocated;
  d.allocations = b.allocations - a.allocations;
  return d;
}

AllocationCounts PoolCounts(const std::shared_ptr<rocksdb::CompressionManager>& m) {
  auto* rp = dynamic_cast<RockpoolCompressionManager*>(m.get());
  return rp != nullptr ? rp->pools()->stats().Total().library : AllocationCounts{};
}

void VerifyAllKeys(rocksdb::DB* db) {
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(i), &value).ok()) << Key(i);
    ASSERT_EQ(value, Value(i)) << Key(i);
  }
}

RunResult FillCompactVerify(const std::string& dir, const CodecCase& c,
                            std::shared_ptr<rocksdb::CompressionManager> manager) {
  RunResult result;
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = rocksdb::DB::Open(DbOptions(c, manager), dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return result;
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  }
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  EXPECT_TRUE(db->WaitForCompact(rocksdb::WaitForCompactOptions()).ok());
  const AllocationCounts builtin_before = rockpool::testing::BuiltinLibraryCounts();
  const AllocationCounts pooled_before = PoolCounts(manager);
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  EXPECT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
  result.builtin_compaction = Delta(builtin_before, rockpool::testing::BuiltinLibraryCounts());
  result.pooled_compaction = Delta(pooled_before, PoolCounts(manager));
  VerifyAllKeys(db.get());
  if (auto* rp = dynamic_cast<RockpoolCompressionManager*>(manager.get())) {
    PoolStats total = rp->pools()->stats().Total();
    result.leases = total.created + total.reused;
    result.reused = total.reused;
  }
  EXPECT_TRUE(db->Close().ok());
  return result;
}

std::vector<std::string> SstFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") files.push_back(e.path().string());
  }
  return files;
}

// Every compressed data block in `dir` equals what the built-in compressor
// writes for the same uncompressed block (and dictionary). Returns the
// number of compressed blocks checked.
size_t ExpectBlocksMatchBuiltin(const std::string& dir, const CodecCase& c) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  sst::SstReadOptions read_options;
  read_options.decompressor = sst::MakeBlockCodecsDecompressor(&codecs);
  size_t checked = 0;
  for (const std::string& path : SstFiles(dir)) {
    auto file = sst::SstFile::Open(path, read_options);
    EXPECT_TRUE(file.ok()) << file.status();
    if (!file.ok()) continue;
    auto builtin =
        rocksdb::GetBuiltinV2CompressionManager()->GetCompressor(CompressionOptionsFor(c), c.type);
    const std::string dict((*file)->compression_dictionary());
    if (!dict.empty()) {
      auto specialized = builtin->MaybeCloneSpecialized(rocksdb::CacheEntryRole::kDataBlock,
                                                        rocksdb::Compressor::DictPreDefined{dict});
      EXPECT_NE(specialized, nullptr);
      if (specialized) builtin = std::move(specialized);
    }
    auto wa = builtin->ObtainWorkingArea();
    auto handles = (*file)->DataBlockHandles();
    EXPECT_TRUE(handles.ok()) << handles.status();
    if (!handles.ok()) continue;
    for (const sst::BlockHandle& h : *handles) {
      auto block = (*file)->ReadRawBlock(h, /*verify_checksum=*/true);
      EXPECT_TRUE(block.ok()) << block.status();
      if (!block.ok() || block->compression_type == 0) continue;
      EXPECT_EQ(block->compression_type, static_cast<uint8_t>(c.type)) << path;
      auto plain = (*file)->Decompress(*block, sst::BlockKind::kData);
      EXPECT_TRUE(plain.ok()) << plain.status();
      if (!plain.ok()) continue;
      std::string out(plain->size() + plain->size() / 2 + 1024, '\0');
      size_t out_size = out.size();
      rocksdb::CompressionType type;
      EXPECT_TRUE(builtin->CompressBlock(*plain, out.data(), &out_size, &type, &wa).ok());
      out.resize(out_size);
      EXPECT_EQ(out, block->payload()) << path << " block at " << h.offset;
      ++checked;
    }
  }
  return checked;
}

std::shared_ptr<rocksdb::CompressionManager> MakeRockpool(const std::string& options) {
  rocksdb::ConfigOptions config;
  std::shared_ptr<rocksdb::CompressionManager> m;
  rocksdb::Status s = rocksdb::CompressionManager::CreateFromString(config, options, &m);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return m;
}

class NativeCodecTest : public ::testing::TestWithParam<CodecCase> {};

TEST_P(NativeCodecTest, FlushCompactVerifyAndBlocksMatchTheBuiltInCompressor) {
  const CodecCase& c = GetParam();
  auto manager = MakeRockpool("rockpool");
  ASSERT_NE(manager, nullptr);
  EXPECT_STREQ(manager->CompatibilityName(), "BuiltinV2");
  const std::string dir = ::rockpool::testing::FreshTestPath("native_" + c.name);
  RunResult r = FillCompactVerify(dir, c, manager);
  EXPECT_GT(r.reused, 0u) << "the pools served no context twice";
  const size_t checked = ExpectBlocksMatchBuiltin(dir, c);
  EXPECT_GT(checked, 50u) << "too few compressed data blocks to compare";

  // Readable without rockpool: reopen with the built-in manager.
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(rocksdb::DB::Open(DbOptions(c, nullptr), dir, &db).ok());
  VerifyAllKeys(db.get());
  ASSERT_TRUE(db->Close().ok());

  // Stock sst_dump checks every file.
  const char* tools = std::getenv("ROCKPOOL_UPSTREAM_BIN");
  ASSERT_NE(tools, nullptr) << "ROCKPOOL_UPSTREAM_BIN (upstream sst_dump's folder) not set";
  const std::string cmd = std::string(tools) + "/sst_dump --file=" + dir + " --command=check > " +
                          dir + "/sst_dump.out 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, NativeCodecTest,
    ::testing::Values(CodecCase{"zstd_default", rocksdb::kZSTD},
                      CodecCase{"zstd_1", rocksdb::kZSTD, 1},
                      CodecCase{"zstd_9", rocksdb::kZSTD, 9},
                      CodecCase{"zstd_3_dict", rocksdb::kZSTD, 3, -14, 0, 16384},
                      CodecCase{"zstd_3_trained_dict", rocksdb::kZSTD, 3, -14, 0, 8192, 65536},
                      CodecCase{"zstd_3_parallel", rocksdb::kZSTD, 3, -14, 0, 0, 0, 4},
                      CodecCase{"zlib_default", rocksdb::kZlibCompression},
                      CodecCase{"zlib_1_wb15", rocksdb::kZlibCompression, 1, -15},
                      CodecCase{"zlib_9_filtered", rocksdb::kZlibCompression, 9, -12, 1},
                      CodecCase{"zlib_dict_parallel", rocksdb::kZlibCompression, 6, -14, 0, 8192, 0,
                                3}),
    [](const ::testing::TestParamInfo<CodecCase>& info) { return info.param.name; });

// Codec-library bytes of repeated full compactions of the same DB: the
// built-in manager against rockpool. Round 0 after the fill is the warm-up;
// rounds 1.. are the steady state (a warm pool), where rockpool must stay
// >= 95% below the built-in. Everything before the steady state (the fill's
// flushes and compactions and round 0: the contexts the pool creates once)
// is the cold-start cost, printed separately.
//
// Why the earlier version (one compaction right after the fill, >= 95%
// required there) failed under load: it measured the warm-up. A zstd
// workspace is sized by the block it compresses (level 3, ZSTD_compress2:
// 4 KiB -> 135 KB, 13 KiB -> 250 KB), and RocksDB 11.8.1 gives each SST
// file two working areas, one for its index block and one for its data
// blocks. The largest blocks here are the index blocks of compaction outputs
// (~13 KiB for 512 KiB files; flushed files have ~3 KiB ones), so a pooled
// context grows once, the first time it serves such an index block:
// 249,602 B in 1 call, no context created. On a quiet machine the fill's own
// compactions grow every pooled context before the measurement; under load
// they lag (the LSM shape after the fill differs: round 0 then rewrites the
// data twice, 8 leases instead of 4) and round 0 grows one or more contexts
// (measured with 8 concurrent runs: 2 of 8 had 249,602 B / 1 call and
// 673,443 B / 6 calls in round 0; rounds 1-3 were 0 B in all 8). After every
// context has served the largest block, none grows again (zstd shrinks a
// workspace only after 128 uses at a third of its size, which a data block
// working area never has). The steady state is therefore exact (0 B), and
// independent of test order (fresh manager and DBs per case), timing
// (idle_seconds=0: nothing expires between rounds) and load (one background
// compaction thread, no overlapping jobs after the fill).
struct CompactionSeries {
  AllocationCounts builtin_setup;         // built-in, open + fill + flushes
  AllocationCounts pooled_setup;          // rockpool, open + fill + flushes
  std::vector<AllocationCounts> builtin;  // built-in library bytes per round
  std::vector<AllocationCounts> pooled;   // rockpool library bytes per round
  std::vector<PoolStats> zstd_c, zstd_d;  // rockpool pool counters per round
};

PoolStats PoolDelta(const PoolStats& a, const PoolStats& b) {
  PoolStats d;
  d.created = b.created - a.created;
  d.reused = b.reused - a.reused;
  d.library.bytes_allocated = b.library.bytes_allocated - a.library.bytes_allocated;
  d.library.allocations = b.library.allocations - a.library.allocations;
  return d;
}

CompactionSeries RepeatedCompactions(const std::string& dir, const CodecCase& c,
                                     std::shared_ptr<rocksdb::CompressionManager> manager,
                                     int rounds) {
  CompactionSeries series;
  auto* rp = dynamic_cast<RockpoolCompressionManager*>(manager.get());
  const AllocationCounts builtin_start = rockpool::testing::BuiltinLibraryCounts();
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = rocksdb::DB::Open(DbOptions(c, manager), dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return series;
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  }
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  EXPECT_TRUE(db->WaitForCompact(rocksdb::WaitForCompactOptions()).ok());
  series.builtin_setup = Delta(builtin_start, rockpool::testing::BuiltinLibraryCounts());
  series.pooled_setup = PoolCounts(manager);
  for (int r = 0; r < rounds; ++r) {
    const AllocationCounts builtin_before = rockpool::testing::BuiltinLibraryCounts();
    const AllocationCounts pooled_before = PoolCounts(manager);
    const CompressionPoolsStats stats_before = rp ? rp->pools()->stats() : CompressionPoolsStats{};
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    EXPECT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    EXPECT_TRUE(db->WaitForCompact(rocksdb::WaitForCompactOptions()).ok());
    series.builtin.push_back(Delta(builtin_before, rockpool::testing::BuiltinLibraryCounts()));
    series.pooled.push_back(Delta(pooled_before, PoolCounts(manager)));
    const CompressionPoolsStats stats_after = rp ? rp->pools()->stats() : CompressionPoolsStats{};
    series.zstd_c.push_back(PoolDelta(stats_before.zstd_compress, stats_after.zstd_compress));
    series.zstd_d.push_back(PoolDelta(stats_before.zstd_decompress, stats_after.zstd_decompress));
  }
  VerifyAllKeys(db.get());
  EXPECT_TRUE(db->Close().ok());
  return series;
}

AllocationCounts Sum(const std::vector<AllocationCounts>& v, size_t from) {
  AllocationCounts total;
  for (size_t i = from; i < v.size(); ++i) {
    total.bytes_allocated += v[i].bytes_allocated;
    total.allocations += v[i].allocations;
  }
  return total;
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

TEST(NativeManagerTest, SteadyStateCompactionLibraryBytesAtLeast95PercentBelowBuiltIn) {
  constexpr int kRounds = 4;  // round 0: warm-up; rounds 1..3: steady state
  // zstd_1k: 1 KiB data blocks make the index blocks (~45 KiB per file) far
  // bigger than the data blocks: contexts serving both in turn would shrink
  // and regrow their workspace for every file (ZstdBlockClass).
  for (const CodecCase& c : {CodecCase{"zstd", rocksdb::kZSTD, 3},
                             CodecCase{"zstd_1k", rocksdb::kZSTD, 3, -14, 0, 0, 0, 1, 1024},
                             CodecCase{"zlib", rocksdb::kZlibCompression}}) {
    SCOPED_TRACE(c.name);
    const CompactionSeries builtin = RepeatedCompactions(
        ::rockpool::testing::FreshTestPath("builtin_" + c.name), c, nullptr, kRounds);
    // idle_seconds=0: no idle context expires between rounds, however slow
    // the machine (expiry has its own tests).
    const CompactionSeries pooled =
        RepeatedCompactions(::rockpool::testing::FreshTestPath("pooled_" + c.name), c,
                            MakeRockpool("{id=rockpool;idle_seconds=0}"), kRounds);
    ASSERT_EQ(builtin.builtin.size(), static_cast<size_t>(kRounds));
    ASSERT_EQ(pooled.pooled.size(), static_cast<size_t>(kRounds));
    for (int r = 0; r < kRounds; ++r) {
      std::printf(
          "%s round %d: built-in %llu B (%llu calls); rockpool %llu B (%llu calls) + built-in %llu "
          "B"
          " | zstd_c created %llu reused %llu %llu B | zstd_d created %llu reused %llu %llu B\n",
          c.name.c_str(), r, U(builtin.builtin[r].bytes_allocated),
          U(builtin.builtin[r].allocations), U(pooled.pooled[r].bytes_allocated),
          U(pooled.pooled[r].allocations), U(pooled.builtin[r].bytes_allocated),
          U(pooled.zstd_c[r].created), U(pooled.zstd_c[r].reused),
          U(pooled.zstd_c[r].library.bytes_allocated), U(pooled.zstd_d[r].created),
          U(pooled.zstd_d[r].reused), U(pooled.zstd_d[r].library.bytes_allocated));
    }
    const AllocationCounts stock = Sum(builtin.builtin, 1);
    AllocationCounts ours = Sum(pooled.pooled, 1);
    ours.bytes_allocated +=
        Sum(pooled.builtin, 1).bytes_allocated;  // nothing may leak to the built-in
    ours.allocations += Sum(pooled.builtin, 1).allocations;
    std::printf(
        "%s steady state (rounds 1-%d): built-in %llu B (%llu calls), rockpool %llu B (%llu "
        "calls)\n",
        c.name.c_str(), kRounds - 1, U(stock.bytes_allocated), U(stock.allocations),
        U(ours.bytes_allocated), U(ours.allocations));
    std::printf(
        "%s cold start (fill + round 0): built-in %llu B (%llu calls), rockpool %llu B (%llu "
        "calls)\n",
        c.name.c_str(),
        U(builtin.builtin_setup.bytes_allocated + builtin.builtin[0].bytes_allocated),
        U(builtin.builtin_setup.allocations + builtin.builtin[0].allocations),
        U(pooled.pooled_setup.bytes_allocated + pooled.pooled[0].bytes_allocated),
        U(pooled.pooled_setup.allocations + pooled.pooled[0].allocations));
    EXPECT_GT(stock.bytes_allocated, 0u)
        << "the built-in compressors' allocations were not counted";
    EXPECT_LE(ours.bytes_allocated * 20, stock.bytes_allocated) << "less than a 95% reduction";
  }
}

// The table builder verifies every block it writes (verify_compression)
// with the compressor's GetOptimizedDecompressor(): rockpool's, so the
// verification decompresses on pooled contexts too.
TEST(NativeManagerTest, VerifyCompressionDecompressesOnPooledContexts) {
  for (const CodecCase& c :
       {CodecCase{"zstd", rocksdb::kZSTD, 3}, CodecCase{"zlib", rocksdb::kZlibCompression}}) {
    SCOPED_TRACE(c.name);
    auto manager = MakeRockpool("rockpool");
    auto* rp = dynamic_cast<RockpoolCompressionManager*>(manager.get());
    ASSERT_NE(rp, nullptr);
    rocksdb::Options options = DbOptions(c, manager);
    rocksdb::BlockBasedTableOptions table;
    table.block_size = 4096;
    table.verify_compression = true;
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    const AllocationCounts builtin_before = rockpool::testing::BuiltinLibraryCounts();
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(rocksdb::DB::Open(
                    options, ::rockpool::testing::FreshTestPath("native_verify_" + c.name), &db)
                    .ok());
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());  // no reads yet: only verification
    const CompressionPoolsStats stats = rp->pools()->stats();
    const PoolStats& d = c.type == rocksdb::kZSTD ? stats.zstd_decompress : stats.inflate;
    EXPECT_GT(d.created + d.reused, 0u) << "verification did not use rockpool's decompressor";
    const AllocationCounts builtin =
        Delta(builtin_before, rockpool::testing::BuiltinLibraryCounts());
    EXPECT_EQ(builtin.allocations, 0u)
        << "the built-in allocated contexts: " << builtin.bytes_allocated;
    ASSERT_TRUE(db->Close().ok());
  }
}

TEST(NativeManagerTest, OptionsStringConfiguresThePools) {
  auto m = MakeRockpool("{id=rockpool;max_idle_per_key=3;idle_seconds=7}");
  auto* rp = dynamic_cast<RockpoolCompressionManager*>(m.get());
  ASSERT_NE(rp, nullptr);
  EXPECT_EQ(rp->options().max_idle_per_key, 3u);
  EXPECT_EQ(rp->options().idle_seconds, 7u);
  EXPECT_EQ(rp->pools()->zstd_compress().options().max_retained_per_key, 3u);

  rocksdb::ColumnFamilyOptions cf;
  rocksdb::ConfigOptions config;
  ASSERT_TRUE(rocksdb::GetColumnFamilyOptionsFromString(
                  config, rocksdb::ColumnFamilyOptions(),
                  "compression=kZSTD;compression_manager={id=rockpool;max_idle_per_key=5}", &cf)
                  .ok());
  ASSERT_NE(cf.compression_manager, nullptr);
  EXPECT_STREQ(cf.compression_manager->Name(), "rockpool");
  EXPECT_EQ(dynamic_cast<RockpoolCompressionManager*>(cf.compression_manager.get())
                ->options()
                .max_idle_per_key,
            5u);
  // And back out: the serialized options name the manager and its options.
  std::string text;
  ASSERT_TRUE(rocksdb::GetStringFromColumnFamilyOptions(config, cf, &text).ok());
  EXPECT_NE(text.find("rockpool"), std::string::npos) << text;
  EXPECT_NE(text.find("max_idle_per_key=5"), std::string::npos) << text;
}

TEST(NativeManagerTest, BadOptionsAreInvalidArgumentNamingTheOption) {
  rocksdb::ConfigOptions config;
  rocksdb::ColumnFamilyOptions cf;
  for (const std::string& bad :
       {std::string("max_idle_per_key=lots"), std::string("idle_seconds=-3"),
        std::string("enabled=maybe"), std::string("no_such_option=1")}) {
    rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
        config, rocksdb::ColumnFamilyOptions(), "compression_manager={id=rockpool;" + bad + "}",
        &cf);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    const std::string name = bad.substr(0, bad.find('='));
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  }
}

TEST(NativeManagerTest, OptionsFileRoundTrip) {
  const std::string dir = ::rockpool::testing::FreshTestPath("native_options_file");
  CodecCase c{"zstd", rocksdb::kZSTD};
  {
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(
        rocksdb::DB::Open(
            DbOptions(c, MakeRockpool("{id=rockpool;max_idle_per_key=6;idle_seconds=9}")), dir, &db)
            .ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
    ASSERT_TRUE(db->Close().ok());
  }
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(rocksdb::LoadLatestOptions(config, dir, &db_options, &cfs).ok());
  ASSERT_FALSE(cfs.empty());
  auto* rp = dynamic_cast<RockpoolCompressionManager*>(cfs[0].options.compression_manager.get());
  ASSERT_NE(rp, nullptr) << "OPTIONS file lost compression_manager=rockpool";
  EXPECT_EQ(rp->options().max_idle_per_key, 6u);
  EXPECT_EQ(rp->options().idle_seconds, 9u);
}

TEST(NativeManagerTest, DisabledManagerHandsOutTheBuiltInCompressors) {
  auto m = MakeRockpool("{id=rockpool;enabled=false}");
  auto compressor = m->GetCompressor(rocksdb::CompressionOptions(), rocksdb::kZSTD);
  ASSERT_NE(compressor, nullptr);
  EXPECT_STREQ(compressor->Name(), "BuiltinZSTDCompressorV2");
  auto on = MakeRockpool("rockpool");
  EXPECT_STREQ(on->GetCompressor(rocksdb::CompressionOptions(), rocksdb::kZSTD)->Name(),
               "RockpoolZstdCompressor");
  EXPECT_STREQ(on->GetCompressor(rocksdb::CompressionOptions(), rocksdb::kLZ4Compression)->Name(),
               "BuiltinLZ4CompressorV2");
}

}  // namespace
}  // namespace rockpool::native
