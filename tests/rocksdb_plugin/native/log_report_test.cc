// The native face's LOG lines (rocksdb_plugin/native/log_report.h) in real
// DBs: "rockpool active" once, one "rockpool report" per SST file built
// with pooled compressors, with the legacy face's counters; nothing but the
// active line when pooling is off or the codec is not pooled; and the close
// report ROCKPOOL_NATIVE_STATS asks for.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "rocksdb/advanced_compression.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb_plugin/native/log_report.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"
#include "tests/compression/test_data.h"

namespace rockpool::native {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<rocksdb::CompressionManager> Manager(const std::string& text) {
  std::shared_ptr<rocksdb::CompressionManager> m;
  rocksdb::Status s =
      rocksdb::CompressionManager::CreateFromString(rocksdb::ConfigOptions(), text, &m);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return m;
}

// Fills, flushes and fully compacts a DB; returns its LOG lines.
std::vector<std::string> RunAndReadLog(const std::string& dir, rocksdb::CompressionType type,
                                       std::shared_ptr<rocksdb::CompressionManager> manager) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = type;
  options.bottommost_compression = type;
  options.compression_manager = std::move(manager);
  options.write_buffer_size = 256 << 10;
  options.level0_file_num_compaction_trigger = 2;
  options.target_file_size_base = 512 << 10;
  options.max_bytes_for_level_base = 1 << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 4096;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  {
    std::unique_ptr<rocksdb::DB> db;
    rocksdb::Status s = rocksdb::DB::Open(options, dir, &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return {};
    for (int i = 0; i < 6000; ++i) {
      EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i * 7919 % 100003),
                          rockpool::testing::SemiCompressible(200, i))
                      .ok());
    }
    EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    EXPECT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    EXPECT_TRUE(db->Close().ok());
  }
  std::ifstream in(dir + "/LOG");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << dir << "/LOG";
  return lines;
}

std::vector<std::string> Containing(const std::vector<std::string>& lines,
                                    const std::string& what) {
  std::vector<std::string> out;
  for (const std::string& l : lines) {
    if (l.find(what) != std::string::npos) out.push_back(l);
  }
  return out;
}

uint64_t Field(const std::string& line, const std::string& section, const std::string& name) {
  const size_t at = line.find(section);
  if (at == std::string::npos) return 0;
  std::smatch m;
  const std::string rest = line.substr(at);
  if (!std::regex_search(rest, m, std::regex(" " + name + "=([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

TEST(NativeLogReportTest, EverySstFileIsReportedWithTheLegacyFacesCounters) {
  for (auto [name, type, pool] : {std::tuple{"zstd", rocksdb::kZSTD, "zstd_c="},
                                  std::tuple{"zlib", rocksdb::kZlibCompression, "deflate="}}) {
    SCOPED_TRACE(name);
    const std::string dir = ::rockpool::testing::FreshTestPath(std::string("native_log_") + name);
    auto lines = RunAndReadLog(dir, type, Manager("{id=rockpool;max_idle_per_key=4}"));

    auto active = Containing(lines, "rockpool active: ");
    ASSERT_EQ(active.size(), 1u) << "one DB, one manager: one active line";
    EXPECT_NE(active[0].find("enabled=true;max_idle_per_key=4;idle_seconds=60;measure_stock=false "
                             "mode=pool; native face: compression_manager=rockpool (compatibility "
                             "name BuiltinV2), RocksDB "),
              std::string::npos)
        << active[0];

    auto flushes =
        Containing(lines, "rockpool report: event=flush cf=default level=0 mode=pool | ");
    auto compactions = Containing(lines, "rockpool report: event=compaction cf=default level=");
    ASSERT_FALSE(flushes.empty());
    ASSERT_FALSE(compactions.empty());
    // since_last is since the previous report of any event: when two jobs
    // (a flush's automatic compaction and CompactRange) finish together, the
    // first report can take both jobs' leases and the second shows 0. So:
    // the since_last counts add up to the total, and totals never shrink.
    uint64_t last_total = 0;
    uint64_t since_last_sum = 0;
    for (const std::string& l : Containing(lines, "rockpool report: ")) {
      EXPECT_NE(l.find("stock_est_bytes="), std::string::npos) << l;
      EXPECT_NE(l.find(pool), std::string::npos) << l;
      since_last_sum += Field(l, "| since_last:", "leases");
      const uint64_t total = Field(l, "| total:", "leases");
      EXPECT_GE(total, last_total) << "totals only grow: " << l;
      EXPECT_EQ(total, since_last_sum) << l;
      last_total = total;
    }
    EXPECT_GT(Field(flushes.front(), "| since_last:", "leases"), 0u) << flushes.front();
    EXPECT_GT(last_total, Field(flushes.front(), "| total:", "leases"))
        << "the compaction leased contexts too";
    // The files reuse contexts: far fewer created than leased.
    const std::string& last = compactions.back();
    EXPECT_LT(Field(last, "| total:", "created") * 4, Field(last, "| total:", "leases")) << last;
    EXPECT_GT(Field(last, "| total:", "reused"), 0u) << last;
  }
}

TEST(NativeLogReportTest, PoolingOffOrAnUnpooledCodecShowsOnlyTheActiveLine) {
  {
    auto lines = RunAndReadLog(::rockpool::testing::FreshTestPath("native_log_off"), rocksdb::kZSTD,
                               Manager("{id=rockpool;enabled=false}"));
    auto active = Containing(lines, "rockpool active: ");
    ASSERT_EQ(active.size(), 1u);
    EXPECT_NE(active[0].find("enabled=false;"), std::string::npos) << active[0];
    EXPECT_NE(active[0].find(" mode=forward; native face"), std::string::npos) << active[0];
    EXPECT_TRUE(Containing(lines, "rockpool report: ").empty());
  }
  {
    auto lines = RunAndReadLog(::rockpool::testing::FreshTestPath("native_log_lz4"),
                               rocksdb::kLZ4Compression, Manager("rockpool"));
    EXPECT_EQ(Containing(lines, "rockpool active: ").size(), 1u);
    EXPECT_TRUE(Containing(lines, "rockpool report: ").empty())
        << "LZ4 stays the built-in's: nothing pooled to report";
  }
}

TEST(NativeLogReportTest, CloseReportGoesToRockpoolNativeStats) {
  const std::string path = ::rockpool::testing::FreshTestPath("native_close_report.txt");
  ASSERT_EQ(setenv("ROCKPOOL_NATIVE_STATS", path.c_str(), 1), 0);
  // A manager that leased nothing (RocksDB creates such managers when it
  // re-reads an OPTIONS file) writes nothing.
  { auto idle = Manager("rockpool"); }
  EXPECT_FALSE(fs::exists(path));
  RunAndReadLog(::rockpool::testing::FreshTestPath("native_log_close"), rocksdb::kZlibCompression,
                Manager("rockpool"));
  ASSERT_EQ(unsetenv("ROCKPOOL_NATIVE_STATS"), 0);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("rockpool report: event=close face=native pid="), std::string::npos)
      << lines[0];
  EXPECT_GT(Field(lines[0], "| total:", "leases"), 0u) << lines[0];
  EXPECT_NE(lines[0].find(" inflate="), std::string::npos) << lines[0];
}

// `rockpool run --stats=/tmp/rp.%p` sets ROCKPOOL_NATIVE_STATS to that path
// for the native object: one file per process, as with ROCKPOOL_STATS.
TEST(NativeLogReportTest, PercentPInRockpoolNativeStatsIsTheProcessId) {
  const std::string pattern = ::rockpool::testing::FreshTestPath("native_stats.%p");
  const std::string path = pattern.substr(0, pattern.size() - 2) + std::to_string(getpid());
  fs::remove(path);
  ASSERT_EQ(setenv("ROCKPOOL_NATIVE_STATS", pattern.c_str(), 1), 0);
  EXPECT_EQ(NativeStatsPath(), path);
  AppendNativeStatsLine("rockpool[1]: a line");
  ASSERT_EQ(unsetenv("ROCKPOOL_NATIVE_STATS"), 0);
  EXPECT_EQ(NativeStatsPath(), "");
  EXPECT_FALSE(fs::exists(pattern));
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << path;
  EXPECT_EQ(line, "rockpool[1]: a line");
}

}  // namespace
}  // namespace rockpool::native
