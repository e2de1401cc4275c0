// librockpool_preload.so in unmodified Debian binaries (rocksdb-tools 7.8.3 on
// Debian 12, 9.10 on Debian 13):
//  - db_bench with LD_PRELOAD and an OPTIONS file whose [DBOptions] has
//    listeners={id=rockpool;...}: succeeds, and its LOG shows pool activity;
//  - the files it wrote are read by sst_dump --command=check and ldb scan
//    WITHOUT the plugin (stock), and the same with the plugin;
//  - a bad rockpool option in the OPTIONS file stops db_bench (with the
//    plugin), while stock db_bench ignores the unknown listener id;
//  - the object brings no libabsl_*.so into the tools (its Abseil is linked
//    in) and exports no Abseil symbol.
//
// Usage: preload_tools_test <path of librockpool_preload.so>
// Not under ASan: an ASan-built preload object cannot be loaded into these
// uninstrumented binaries (tagged no_asan; skips itself when built with ASan).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "rocksdb_plugin/built_for_line.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

using rockpool::plugin_test::Field;
using rockpool::plugin_test::Result;
using rockpool::plugin_test::Sh;

namespace rockpool {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

std::string g_preload;  // absolute path of librockpool_preload.so

std::string WithPlugin() { return "LD_PRELOAD=" + g_preload + " "; }

std::string OptionsFile(const std::string& dir, const std::string& compression,
                        const std::string& listener) {
  const std::string path = dir + "/OPTIONS.ini";
  std::ofstream f(path);
  f << "[Version]\n  rocksdb_version=" ROCKPOOL_ROCKSDB_VERSION
       "\n  options_file_version=1.1\n\n"
       "[DBOptions]\n  create_if_missing=true\n  max_background_jobs=2\n"
       "  listeners="
    << listener
    << "\n\n"
       "[CFOptions \"default\"]\n  compression="
    << compression
    << "\n"
       "  write_buffer_size=262144\n  target_file_size_base=262144\n"
       "  max_bytes_for_level_base=1048576\n\n"
       "[TableOptions/BlockBasedTable \"default\"]\n";
  return path;
}

std::string DbBench(const std::string& db, const std::string& options_file) {
  return "/usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 --value_size=200"
         " --seed=42 --db=" +
         db + " --options_file=" + options_file;
}

class PreloadToolsTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (kAsan)
      GTEST_SKIP() << "built with ASan: the preload object cannot load into /usr/bin tools";
    for (const char* tool : {"/usr/bin/db_bench", "/usr/bin/ldb", "/usr/bin/sst_dump"}) {
      ASSERT_TRUE(std::filesystem::exists(tool))
          << tool << " missing: apt-get install rocksdb-tools";
    }
    ASSERT_TRUE(std::filesystem::exists(g_preload)) << "preload object not found: " << g_preload;
  }
};

TEST_P(PreloadToolsTest, DbBenchPooledAndStockToolsReadTheFiles) {
  const std::string compression = GetParam();
  const std::string dir = plugin_test::NewTempDir("preload_" + compression);
  const std::string db = dir + "/db";
  const std::string options =
      OptionsFile(dir, compression, "{id=rockpool;max_idle_per_key=8;idle_seconds=60}");

  const Result bench = Sh(WithPlugin() + DbBench(db, options));
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  EXPECT_NE(bench.output.find("compact"), std::string::npos) << bench.output;

  // The LOG shows rockpool and its pools at work.
  const auto active = plugin_test::LogLines(db, "rockpool active:");
  ASSERT_EQ(active.size(), 1u) << "no 'rockpool active' line in " << db << "/LOG";
  EXPECT_NE(active[0].find("zstd interposed, zlib interposed"), std::string::npos) << active[0];
  EXPECT_FALSE(plugin_test::LogLines(db, "rockpool report: event=flush").empty());
  const auto compactions = plugin_test::LogLines(db, "rockpool report: event=compaction");
  ASSERT_FALSE(compactions.empty());
  const std::string& last = compactions.back();
  const uint64_t created = Field(last, "| total:", "created");
  const uint64_t reused = Field(last, "| total:", "reused");
  const uint64_t lib_bytes = Field(last, "| total:", "lib_bytes");
  const uint64_t stock_est = Field(last, "| total:", "stock_est_bytes");
  EXPECT_GT(reused, created) << last;
  EXPECT_LT(lib_bytes, stock_est) << last;
  if (compression == "kZlibCompression") {
    EXPECT_GT(reused, 1000u) << last;
    EXPECT_LT(lib_bytes * 20, stock_est) << last;  // >= 95% less
  }

  // Stock tools, no plugin: the OPTIONS file's rockpool entry is ignored and
  // every block is readable.
  const Result check = Sh("/usr/bin/sst_dump --file=" + db + " --command=check");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_EQ(check.output.find("Corruption"), std::string::npos) << check.output;
  const Result scan = Sh("/usr/bin/ldb --db=" + db + " scan");
  ASSERT_EQ(scan.exit_code, 0) << scan.output.substr(0, 2000);
  const size_t keys = static_cast<size_t>(std::count(scan.output.begin(), scan.output.end(), '\n'));
  EXPECT_GT(keys, 10000u);  // fillrandom of 20000 draws ~12,600 distinct keys

  // The same tools with the plugin read the same data.
  const Result scan_pooled = Sh(WithPlugin() + "/usr/bin/ldb --db=" + db + " scan");
  ASSERT_EQ(scan_pooled.exit_code, 0);
  EXPECT_TRUE(scan_pooled.output == scan.output) << "ldb scan differs with the plugin";
  const Result check_pooled =
      Sh(WithPlugin() + "/usr/bin/sst_dump --file=" + db + " --command=check");
  EXPECT_EQ(check_pooled.exit_code, 0) << check_pooled.output;
}

INSTANTIATE_TEST_SUITE_P(Codecs, PreloadToolsTest, testing::Values("kZlibCompression", "kZSTD"));

// Loading the object costs the host its own pages only: Abseil is linked in
// from source (third_party/preloaded_absl.bzl) instead of Debian's 25 shared
// libabsl_*.so, and that copy stays private to it.
TEST(PreloadObjectTest, CarriesItsOwnAbseil) {
  ASSERT_TRUE(std::filesystem::exists(g_preload)) << "preload object not found: " << g_preload;
  const Result needed = Sh("readelf -d " + g_preload);
  ASSERT_EQ(needed.exit_code, 0) << needed.output;
  EXPECT_NE(needed.output.find(ROCKPOOL_ROCKSDB_SONAME), std::string::npos) << needed.output;
  EXPECT_EQ(needed.output.find("libabsl"), std::string::npos) << needed.output;
  // Neither defines nor refers to an absl:: symbol (mangled "4absl") in its
  // dynamic symbol table.
  const Result all = Sh("nm -D " + g_preload);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_EQ(all.output.find("4absl"), std::string::npos) << all.output;
}

// db_bench configured by flags alone (no --options_file, so no listener from
// options): ROCKPOOL_OPTIONS switches pooling on at load, the DB::Open hook
// gives the DB its LOG lines, and ROCKPOOL_STATS gets the process's totals.
std::string FlagsOnlyDbBench(const std::string& db) {
  return "/usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 --value_size=200"
         " --seed=42 --compression_type=zlib --write_buffer_size=262144"
         " --target_file_size_base=262144 --db=" +
         db;
}

TEST(PreloadEnvironmentTest, FlagsOnlyDbBenchPoolsAndLogs) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = plugin_test::NewTempDir("preload_env");
  const std::string db = dir + "/db";
  const std::string stats = dir + "/stats.txt";
  const std::string err_file = dir + "/stderr.txt";
  const Result bench =
      Sh("(env -u ROCKPOOL_VERBOSE ROCKPOOL_OPTIONS='max_idle_per_key=8;idle_seconds=60' "
         "ROCKPOOL_STATS=" +
         stats + " " + WithPlugin() + FlagsOnlyDbBench(db) + " 2>" + err_file + ")");
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  // Quiet by default: nothing of rockpool's on stderr (or stdout) on success.
  const std::string err = plugin_test::ReadFile(err_file);
  EXPECT_EQ(err.find("rockpool:"), std::string::npos) << err;
  EXPECT_EQ(err.find("rockpool["), std::string::npos) << err;
  EXPECT_EQ(bench.output.find("rockpool:"), std::string::npos) << bench.output;
  EXPECT_EQ(bench.output.find("rockpool["), std::string::npos) << bench.output;

  const auto active = plugin_test::LogLines(db, "rockpool active:");
  ASSERT_EQ(active.size(), 1u) << "no 'rockpool active' line in " << db << "/LOG";
  EXPECT_NE(active[0].find("mode=pool; zstd interposed, zlib interposed"), std::string::npos)
      << active[0];
  const auto compactions = plugin_test::LogLines(db, "rockpool report: event=compaction");
  ASSERT_FALSE(compactions.empty());
  EXPECT_GT(Field(compactions.back(), "| total:", "reused"), 1000u) << compactions.back();

  // The stats file: the whole process at exit, at least the LOG's totals.
  const std::string line = plugin_test::ReadFile(stats);
  ASSERT_NE(line.find("rockpool report: event=exit pid="), std::string::npos) << line;
  EXPECT_NE(line.find(" mode=pool "), std::string::npos) << line;
  EXPECT_GE(Field(line, "| total:", "reused"), Field(compactions.back(), "| total:", "reused"));
  EXPECT_LT(Field(line, "| total:", "created"), 20u) << line;

  // ROCKPOOL_VERBOSE=1: the activation line, with the pid of the process
  // (the shell prints its pid, then execs the tool).
  const Result scan =
      Sh("(sh -c 'echo $$; exec env ROCKPOOL_VERBOSE=1 "
         "ROCKPOOL_OPTIONS=\"max_idle_per_key=8;idle_seconds=60\" " +
         WithPlugin() + "/usr/bin/ldb --db=" + db + " scan >/dev/null' 2>" + err_file + ")");
  ASSERT_EQ(scan.exit_code, 0) << scan.output;
  const std::string pid = scan.output.substr(0, scan.output.find('\n'));
  EXPECT_EQ(plugin_test::ReadFile(err_file),
            "rockpool[" + pid +
                "]: active from ROCKPOOL_OPTIONS: enabled=true;max_idle_per_key=8;"
                "idle_seconds=60;measure_stock=false mode=pool; zstd interposed, zlib interposed, "
                "lz4 interposed\n");
}

// A guest costs nothing until it serves: with pooling on but no codec ever
// called (an uncompressed DB, written by db_bench and read by ldb), no codec
// is bound (no layout check ran, no library was pinned) and no context or
// pool exists; the LOG still says how the process would be served.
TEST(PreloadEnvironmentTest, UncompressedProcessesBindAndCreateNothing) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = plugin_test::NewTempDir("preload_env_none");
  const std::string db = dir + "/db";
  const std::string env = "ROCKPOOL_OPTIONS='max_idle_per_key=8' ROCKPOOL_STATS=" + dir + "/";
  const Result bench = Sh(env + "bench.txt " + WithPlugin() +
                          "/usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000"
                          " --compression_type=none --db=" +
                          db);
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  const Result scan = Sh(env + "ldb.txt " + WithPlugin() + "/usr/bin/ldb --db=" + db + " scan");
  ASSERT_EQ(scan.exit_code, 0) << scan.output;
  for (const char* name : {"bench.txt", "ldb.txt"}) {
    const std::string line = plugin_test::ReadFile(dir + "/" + name);
    ASSERT_NE(line.find("rockpool report: event="), std::string::npos) << name << ": " << line;
    EXPECT_NE(line.find(" mode=pool "), std::string::npos) << line;
    EXPECT_EQ(Field(line, "| total:", "created"), 0u) << line;
    EXPECT_NE(line.find(" zstd=unused zlib=unused lz4=unused"), std::string::npos) << line;
  }
  const auto at_open = plugin_test::LogLines(db, "rockpool active at open:");
  ASSERT_FALSE(at_open.empty());
  EXPECT_NE(at_open[0].find("zstd interposed, zlib interposed, lz4 interposed"), std::string::npos)
      << at_open[0];
}

TEST(PreloadEnvironmentTest, BadValueLeavesPoolingOffWithOneLine) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = plugin_test::NewTempDir("preload_env_bad");
  const std::string db = dir + "/db";
  const Result bench =
      Sh("ROCKPOOL_OPTIONS='max_idle_per_key=lots' " + WithPlugin() + FlagsOnlyDbBench(db));
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  EXPECT_NE(bench.output.find("rockpool: ROCKPOOL_OPTIONS=\"max_idle_per_key=lots\": "),
            std::string::npos)
      << bench.output;
  EXPECT_NE(bench.output.find("max_idle_per_key"), std::string::npos);
  EXPECT_NE(bench.output.find("; pooling stays off\n"), std::string::npos) << bench.output;
  EXPECT_EQ(bench.output.find("active from"), std::string::npos) << bench.output;
  EXPECT_TRUE(plugin_test::LogLines(db, "rockpool active").empty());  // nothing attached
  EXPECT_TRUE(plugin_test::LogLines(db, "rockpool report").empty());
}

TEST(PreloadEnvironmentTest, ListenerFromOptionsReplacesTheEnvironment) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = plugin_test::NewTempDir("preload_env_listener");
  const std::string db = dir + "/db";
  const std::string options = OptionsFile(dir, "kZlibCompression", "{id=rockpool;enabled=false}");
  const Result bench =
      Sh("ROCKPOOL_OPTIONS='max_idle_per_key=8' " + WithPlugin() + DbBench(db, options));
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  const auto active = plugin_test::LogLines(db, "rockpool active:");
  ASSERT_EQ(active.size(), 1u);
  EXPECT_NE(active[0].find("enabled=false"), std::string::npos) << active[0];
  EXPECT_NE(active[0].find("mode=forward"), std::string::npos) << active[0];
  const auto reports = plugin_test::LogLines(db, "rockpool report: event=compaction");
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(Field(reports.back(), "| total:", "leases"), 0u) << reports.back();
}

TEST(PreloadBadOptionsTest, DbBenchRefusesBadRockpoolOptions) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = plugin_test::NewTempDir("preload_bad");
  const std::string options =
      OptionsFile(dir, "kZlibCompression", "{id=rockpool;max_idle_per_key=8;idle_second=60}");
  const Result pooled = Sh(WithPlugin() + DbBench(dir + "/db1", options));
  EXPECT_NE(pooled.exit_code, 0) << pooled.output;
  EXPECT_NE(pooled.output.find("Invalid argument"), std::string::npos) << pooled.output;
  EXPECT_NE(pooled.output.find("idle_second"), std::string::npos) << pooled.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/db1/CURRENT"));  // never opened
  // Without the plugin the unknown listener id is ignored (RocksDB's rule).
  const Result stock = Sh(DbBench(dir + "/db2", options));
  EXPECT_EQ(stock.exit_code, 0) << stock.output;
}

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <librockpool_preload.so>\n", argv[0]);
    return 2;
  }
  std::error_code ec;
  rockpool::g_preload = std::filesystem::absolute(argv[1], ec).string();
  return RUN_ALL_TESTS();
}
