// librockpool_interpose.so, the preload object for processes that carry
// their own RocksDB (MariaDB's MyRocks): no RocksDB in its dependencies or
// exports, configured from ROCKPOOL_OPTIONS alone, reporting through
// ROCKPOOL_STATS. Driven on codec_loop, a program with no RocksDB that runs
// stock RocksDB's per-block context pattern.
//
// Usage: interpose_object_test <librockpool_interpose.so> <codec_loop>
// Not under ASan (an ASan-built object cannot be preloaded into an
// uninstrumented program): tagged no_asan, and skips itself.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "rocksdb_plugin/legacy/entry_points.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

namespace rockpool {
namespace {

using plugin_test::Field;
using plugin_test::ReadFile;
using plugin_test::Result;
using plugin_test::Sh;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

std::string g_object;
std::string g_loop;

class InterposeObjectTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(g_object)) << g_object;
    ASSERT_TRUE(std::filesystem::exists(g_loop)) << g_loop;
    dir_ = plugin_test::NewTempDir("interpose_object");
  }
  Result Loop(const std::string& env, int rounds = 200) {
    return Sh(env + " LD_PRELOAD=" + g_object + " " + g_loop + " " + std::to_string(rounds));
  }
  // Runs `program` with `env` and the object preloaded, from a shell that
  // first prints its pid (`exec` keeps it: the program's pid). Returns the
  // exit code and stdout (the pid first); *err gets stderr exactly.
  Result Preloaded(const std::string& env, const std::string& program, std::string* err) {
    const std::string err_file = dir_ + "/stderr.txt";
    const Result r = Sh("(sh -c 'echo $$; exec env -u ROCKPOOL_VERBOSE " + env +
                        " LD_PRELOAD=" + g_object + " " + program + "' 2>" + err_file + ")");
    *err = ReadFile(err_file);
    return r;
  }
  static std::string Pid(const Result& r) { return r.output.substr(0, r.output.find('\n')); }
  std::string dir_;
};

TEST_F(InterposeObjectTest, CarriesNoRocksDb) {
  const Result needed = Sh("readelf -d " + g_object);
  ASSERT_EQ(needed.exit_code, 0) << needed.output;
  EXPECT_EQ(needed.output.find("rocksdb"), std::string::npos) << needed.output;
  // Nor any codec library: loading it must not put a libzstd, libz or liblz4 into a
  // process that had none; it reaches each caller's copy at run
  // time (rocksdb_plugin/legacy/codec_routes.h).
  EXPECT_NE(needed.output.find("libstdc++"), std::string::npos) << needed.output;
  EXPECT_EQ(needed.output.find("libzstd"), std::string::npos) << needed.output;
  EXPECT_EQ(needed.output.find("libz.so"), std::string::npos) << needed.output;
  EXPECT_EQ(needed.output.find("liblz4"), std::string::npos) << needed.output;
  const Result undefined = Sh("nm -D --undefined-only " + g_object +
                              " | grep -E ' (ZSTD_|ZDICT_|deflate|inflate|zlibVersion|zError)'");
  EXPECT_EQ(undefined.output, "") << "codec functions it would bind by name";

  // Its own Abseil, linked in (third_party/preloaded_absl.bzl): no
  // libabsl_*.so to load into the host.
  EXPECT_EQ(needed.output.find("libabsl"), std::string::npos) << needed.output;

  // Neither defines nor refers to any rocksdb:: symbol (mangled "7rocksdb"),
  // nor any absl:: one (its copy is private: hidden, resolved at link time).
  const Result all = Sh("nm -D " + g_object);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_EQ(all.output.find("7rocksdb"), std::string::npos) << all.output;
  EXPECT_EQ(all.output.find("4absl"), std::string::npos) << all.output;

  // Its exported functions are exactly the interposed entry points.
  const Result exported =
      Sh("nm -D --defined-only " + g_object + " | awk '$2 == \"T\" {print $3}'");
  ASSERT_EQ(exported.exit_code, 0);
  std::set<std::string> names;
  std::istringstream in(exported.output);
  for (std::string name; in >> name;) names.insert(name);
#define ROCKPOOL_ENTRY_POINT_NAME(name) #name,
  const std::set<std::string> expected = {ROCKPOOL_ZSTD_ENTRY_POINTS(
      ROCKPOOL_ENTRY_POINT_NAME) ROCKPOOL_ZLIB_ENTRY_POINTS(ROCKPOOL_ENTRY_POINT_NAME)
                                              ROCKPOOL_LZ4_ENTRY_POINTS(ROCKPOOL_ENTRY_POINT_NAME)};
#undef ROCKPOOL_ENTRY_POINT_NAME
  EXPECT_EQ(names, expected);
}

TEST_F(InterposeObjectTest, PoolsFromTheEnvironmentAndWritesStats) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string stats = dir_ + "/stats.txt";
  std::string err;
  const Result r =
      Preloaded("ROCKPOOL_VERBOSE=1 ROCKPOOL_OPTIONS='max_idle_per_key=4' ROCKPOOL_STATS=" + stats,
                g_loop + " 200", &err);
  ASSERT_EQ(r.exit_code, 0) << r.output << err;
  // ROCKPOOL_VERBOSE=1: exactly the activation line, with the process's pid.
  const std::string start =
      "rockpool[" + Pid(r) + "]: active from ROCKPOOL_OPTIONS: enabled=true;max_idle_per_key=4;";
  EXPECT_EQ(err.rfind(start, 0), 0u) << err;
  EXPECT_NE(err.find(" mode=pool; zstd interposed, zlib interposed, lz4 interposed\n"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;  // one line

  const std::string line = ReadFile(stats);
  ASSERT_NE(line.find("rockpool report: event=exit pid="), std::string::npos) << line;
  EXPECT_NE(line.find(" mode=pool "), std::string::npos) << line;
  // 200 rounds x 4 contexts, one of each kind created (a single thread).
  EXPECT_EQ(Field(line, "| total:", "leases"), 800u) << line;
  EXPECT_EQ(Field(line, "| total:", "created"), 4u) << line;
  EXPECT_EQ(Field(line, "| total:", "reused"), 796u) << line;
  EXPECT_NE(line.find("deflate=200/1/199/"), std::string::npos) << line;
  EXPECT_NE(line.find("zstd_c=200/1/199/"), std::string::npos) << line;
  EXPECT_FALSE(std::filesystem::exists(stats + ".tmp"));
}

// Safe in every process: every process inheriting ROCKPOOL_OPTIONS (each child of a shell
// shim) printed its activation line; success is silent now.
TEST_F(InterposeObjectTest, QuietByDefault) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  std::string err;
  const Result t = Preloaded("ROCKPOOL_OPTIONS=max_idle_per_key=8", "/bin/true", &err);
  ASSERT_EQ(t.exit_code, 0) << t.output << err;
  EXPECT_EQ(err, "");
  // The same, pooling for real, with a stats file and ROCKPOOL_VERBOSE=0.
  const std::string stats = dir_ + "/stats.txt";
  const Result loop =
      Preloaded("ROCKPOOL_VERBOSE=0 ROCKPOOL_OPTIONS=max_idle_per_key=8 ROCKPOOL_STATS=" + stats,
                g_loop + " 50", &err);
  ASSERT_EQ(loop.exit_code, 0) << loop.output << err;
  EXPECT_EQ(err, "");
  const std::string line = ReadFile(stats);
  EXPECT_NE(line.find(" mode=pool "), std::string::npos) << line;  // it did pool
  EXPECT_EQ(Field(line, "| total:", "reused"), 196u) << line;
  // A process tree through shell shims: not a line from any of them ...
  const std::string tree = R"(sh -c "sh -c /bin/true; /bin/true; sh -c \"sh -c /bin/true\"")";
  const Result quiet = Preloaded("ROCKPOOL_OPTIONS=max_idle_per_key=8", tree, &err);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output << err;
  EXPECT_EQ(err, "");
  // ... and with ROCKPOOL_VERBOSE=1 one from each process that loaded the
  // object (the first with the tree's root pid), each with its pid.
  const Result verbose =
      Preloaded("ROCKPOOL_VERBOSE=1 ROCKPOOL_OPTIONS=max_idle_per_key=8", tree, &err);
  ASSERT_EQ(verbose.exit_code, 0) << verbose.output << err;
  std::istringstream lines(err);
  int n = 0;
  for (std::string l; std::getline(lines, l); ++n) {
    const size_t close =
        l.find("]: active from ROCKPOOL_OPTIONS: enabled=true;max_idle_per_key=8;");
    ASSERT_EQ(l.rfind("rockpool[", 0), 0u) << l;
    ASSERT_NE(close, std::string::npos) << l;
    const std::string pid = l.substr(9, close - 9);
    EXPECT_EQ(pid.find_first_not_of("0123456789"), std::string::npos) << l;
    if (n == 0) {
      EXPECT_EQ(pid, Pid(verbose)) << err;
    }
  }
  EXPECT_GE(n, 3) << err;  // at least the root and two of its children
}

TEST_F(InterposeObjectTest, MeasureStockCountsEveryContext) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string stats = dir_ + "/stats.txt";
  const Result r = Loop("ROCKPOOL_OPTIONS='measure_stock=true' ROCKPOOL_STATS=" + stats, 50);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string line = ReadFile(stats);
  EXPECT_NE(line.find(" mode=measure_stock "), std::string::npos) << line;
  EXPECT_EQ(Field(line, "| total:", "created"), 200u) << line;
  EXPECT_EQ(Field(line, "| total:", "reused"), 0u) << line;
  EXPECT_GT(Field(line, "| total:", "lib_bytes"), 50u * 200000) << line;  // deflate alone ~200 KB
}

TEST_F(InterposeObjectTest, WithoutOptionsEverythingIsForwarded) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string stats = dir_ + "/stats.txt";
  const Result r = Loop("ROCKPOOL_STATS=" + stats);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");  // silent when not switched on
  const std::string line = ReadFile(stats);
  EXPECT_NE(line.find(" mode=forward "), std::string::npos) << line;
  EXPECT_EQ(Field(line, "| total:", "leases"), 0u) << line;
}

TEST_F(InterposeObjectTest, BadOptionsSayOneLineAndForward) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string stats = dir_ + "/stats.txt";
  const Result r = Loop("ROCKPOOL_OPTIONS='max_idle_per_key=8;idle=3' ROCKPOOL_STATS=" + stats);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string error =
      "rockpool: ROCKPOOL_OPTIONS=\"max_idle_per_key=8;idle=3\": unknown option \"idle\" "
      "(known options: enabled, max_idle_per_key, idle_seconds, measure_stock); pooling "
      "stays off\n";
  EXPECT_EQ(r.output, error);  // printed without ROCKPOOL_VERBOSE
  EXPECT_NE(ReadFile(stats).find(" mode=forward "), std::string::npos);
  // The same with ROCKPOOL_VERBOSE=1: the error alone (there is no activation).
  const Result v = Loop("ROCKPOOL_VERBOSE=1 ROCKPOOL_OPTIONS='max_idle_per_key=8;idle=3'");
  ASSERT_EQ(v.exit_code, 0) << v.output;
  EXPECT_EQ(v.output, error);
}

TEST_F(InterposeObjectTest, PidInStatsPathAndNoOverwriteByIdleProcesses) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string stats = dir_ + "/stats.txt";
  ASSERT_EQ(Loop("ROCKPOOL_OPTIONS=max_idle_per_key=2 ROCKPOOL_STATS=" + stats).exit_code, 0);
  const std::string first = ReadFile(stats);
  ASSERT_EQ(Field(first, "| total:", "leases"), 800u) << first;
  // A process that leased nothing (0 rounds) leaves the file alone.
  ASSERT_EQ(Loop("ROCKPOOL_OPTIONS=max_idle_per_key=2 ROCKPOOL_STATS=" + stats, 0).exit_code, 0);
  EXPECT_EQ(ReadFile(stats), first);
  // %p: one file per process.
  ASSERT_EQ(Loop("ROCKPOOL_OPTIONS=max_idle_per_key=2 ROCKPOOL_STATS=" + dir_ + "/s.%p").exit_code,
            0);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    if (e.path().filename().string().rfind("s.", 0) == 0) {
      ++files;
      EXPECT_NE(e.path().filename().string(), "s.%p");
    }
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(InterposeObjectTest, BadStatsPeriodIsReported) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const Result r = Loop(
      "ROCKPOOL_OPTIONS=max_idle_per_key=2 ROCKPOOL_STATS_SECONDS=soon "
      "ROCKPOOL_STATS=" +
      dir_ + "/stats.txt");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The error alone: pooling is on, silently.
  EXPECT_EQ(r.output,
            "rockpool: ROCKPOOL_STATS_SECONDS=\"soon\" is not a number of seconds; statistics "
            "are not written\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/stats.txt"));
}

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <librockpool_interpose.so> <codec_loop>\n", argv[0]);
    return 2;
  }
  rockpool::g_object = std::filesystem::absolute(argv[1]).string();
  rockpool::g_loop = std::filesystem::absolute(argv[2]).string();
  return RUN_ALL_TESTS();
}
