// rockpool with a RocksDB other than the one librockpool_preload.so is
// built for (other_rocksdb_stub.cc stands in for it):
//   - `rockpool check`/`run` give the interposer to a program on another
//     soname, on another build of the preload object's soname, on a library
//     the loader cannot find, and to Debian's db_bench when LD_LIBRARY_PATH
//     puts another librocksdb.so.X.Y (the preload object's soname: 7.8 on
//     Debian 12, 9.10 on Debian 13) first (tools/rockpool/object_choice.h);
//   - a librockpool_native.so in the objects' folder is chosen for the
//     build its line names and not for another build or soname, and the
//     reason says why not;
//   - the preload object, forced into a process running librocksdb.so.9,
//     refuses: the program runs as without rockpool, silent without
//     ROCKPOOL_VERBOSE, one line with it, and the stats file and
//     `rockpool stats` say why (rocksdb_plugin/legacy/refusal.h).
//
// Usage: other_rocksdb_test <rockpool> <librockpool_interpose.so>
//        <program_on_rocksdb_9> <program_on_other_build> <stub librocksdb.so.X.Y>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb_plugin/built_for_line.h"
#include "tests/tools/rockpool/cli_runner.h"
#include "tools/rockpool/stats_file.h"

namespace rockpool::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using namespace ::rockpool::cli::cli_test;

std::string g_program_9, g_program_other_build, g_stub_other_build, g_libdir;

// A folder with the real objects and a librockpool_native.so that is only
// its built-for line (`check` reads the file, never loads it).
std::string LibDirWithNative(const std::string& name, const std::string& fields) {
  const std::string dir = TempDir() + "/" + name;
  EXPECT_EQ(system(("mkdir -p " + dir + " && cp " + g_libdir + "/librockpool_interpose.so " +
                    g_libdir + "/librockpool_preload.so " + dir)
                       .c_str()),
            0);
  FILE* f = std::fopen((dir + "/librockpool_native.so").c_str(), "wb");
  EXPECT_NE(f, nullptr);
  if (f != nullptr) {
    const std::string line =
        "\x7f"
        "ELF rockpool_native_built_for: " +
        fields;
    std::fwrite(line.c_str(), 1, line.size() + 1, f);  // with its NUL
    std::fclose(f);
  }
  return dir;
}

constexpr char kPreloadIsFor[] = "librockpool_preload.so is for RocksDB ";
constexpr char kInterposer[] = ": the interposer, safe with any RocksDB\n";

TEST(OtherRocksdb, CheckGivesTheInterposerToAnotherSoname) {
  const Result r = Rockpool({"check", g_program_9});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_interpose.so: " + g_program_9 +
                                " needs librocksdb.so.9 (DT_NEEDED); " + kPreloadIsFor));
  EXPECT_THAT(r.out, HasSubstr(kInterposer));
}

TEST(OtherRocksdb, CheckGivesTheInterposerToAnotherBuildOfTheSameSoname) {
  const Result r = Rockpool({"check", g_program_other_build});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_interpose.so: " + g_program_other_build +
                                " needs " ROCKPOOL_ROCKSDB_SONAME " (DT_NEEDED), found at "));
  EXPECT_THAT(r.out, HasSubstr(ROCKPOOL_ROCKSDB_SONAME ", built 2000-01-01 00:00:00; "));
  EXPECT_THAT(r.out, HasSubstr(kInterposer));
}

TEST(OtherRocksdb, CheckGivesTheNativeObjectToTheBuildItIsFor) {
  const std::string dir = LibDirWithNative(
      "native_for_9", "version=9.0.0 soname=librocksdb.so.9 build_date=2000-01-01 00:00:00");
  const Result r = Rockpool({"check", g_program_9}, {"ROCKPOOL_LIBDIR=" + dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_native.so: " + g_program_9 +
                                " needs librocksdb.so.9 (DT_NEEDED), found at "));
  EXPECT_THAT(r.out, HasSubstr(", built 2000-01-01 00:00:00: RocksDB 9.0.0 (librocksdb.so.9, built "
                               "2000-01-01 00:00:00), the build librockpool_native.so is for; it "
                               "serves the DBs whose options name compression_manager=rockpool\n"));
  EXPECT_THAT(r.out, HasSubstr("object: " + dir + "/librockpool_native.so\n"));
}

TEST(OtherRocksdb, CheckSaysWhyNotTheNativeObjectForAnotherBuild) {
  const std::string dir = LibDirWithNative(
      "native_for_other_9", "version=9.0.0 soname=librocksdb.so.9 build_date=2001-01-01 00:00:00");
  const Result r = Rockpool({"check", g_program_9}, {"ROCKPOOL_LIBDIR=" + dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_interpose.so: " + g_program_9 +
                                " needs librocksdb.so.9 (DT_NEEDED); " + kPreloadIsFor));
  EXPECT_THAT(r.out,
              HasSubstr(": the interposer, safe with any RocksDB (not librockpool_native.so: " +
                        g_program_9 + " needs librocksdb.so.9 (DT_NEEDED), found at "));
  EXPECT_THAT(r.out, HasSubstr(", built 2000-01-01 00:00:00; librockpool_native.so is for RocksDB "
                               "9.0.0 (librocksdb.so.9, built 2001-01-01 00:00:00) only)\n"));
  // Another soname: the same.
  const Result other = Rockpool({"check", g_program_other_build}, {"ROCKPOOL_LIBDIR=" + dir});
  EXPECT_THAT(other.out, StartsWith("librockpool_interpose.so: "));
  EXPECT_THAT(other.out,
              HasSubstr("(not librockpool_native.so: " + g_program_other_build +
                        " needs " ROCKPOOL_ROCKSDB_SONAME " (DT_NEEDED); librockpool_native.so is "
                        "for RocksDB 9.0.0"));
}

TEST(OtherRocksdb, CheckGivesTheInterposerWhenTheLibraryIsMissing) {
  // Alone in a folder, the program's RUNPATH ($ORIGIN/...) finds nothing.
  const std::string alone = TempDir() + "/alone";
  ASSERT_EQ(system(("mkdir -p " + alone + " && cp " + g_program_9 + " " + alone).c_str()), 0);
  const std::string program = alone + "/program_on_rocksdb_9";
  const Result r = Rockpool({"check", program});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_interpose.so: " + program +
                                " needs librocksdb.so.9 (DT_NEEDED); "));
  // The same soname as the preload object, not found.
  const std::string alone_other_build = alone + "/program_on_other_build";
  ASSERT_EQ(system(("cp " + g_program_other_build + " " + alone_other_build).c_str()), 0);
  const Result missing = Rockpool({"check", alone_other_build}, {"LD_LIBRARY_PATH=" + alone});
  // Without its stub, the soname resolves to the system's (Debian's):
  // the preload object is right for it.
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_THAT(missing.out, StartsWith("librockpool_preload.so: " + alone_other_build));
}

TEST(OtherRocksdb, LibraryPathAheadOfDebiansGetsTheInterposer) {
  const std::string dir = TempDir() + "/libpath";
  ASSERT_EQ(system(("mkdir -p " + dir + " && ln -sf " + g_stub_other_build + " " + dir +
                    "/" ROCKPOOL_ROCKSDB_SONAME)
                       .c_str()),
            0);
  Result r = Rockpool({"check", "db_bench"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_THAT(r.out,
              StartsWith("librockpool_preload.so: /usr/bin/db_bench needs " ROCKPOOL_ROCKSDB_SONAME
                         " (DT_NEEDED), found at "));
  EXPECT_THAT(r.out, HasSubstr("the build librockpool_preload.so is for"));
  r = Rockpool({"check", "db_bench"}, {"LD_LIBRARY_PATH=" + dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out, StartsWith("librockpool_interpose.so: /usr/bin/db_bench needs " ROCKPOOL_ROCKSDB_SONAME
                        " (DT_NEEDED), found at " +
                        dir + "/" ROCKPOOL_ROCKSDB_SONAME ", built 2000-01-01 00:00:00; "));
}

TEST(OtherRocksdb, PreloadObjectRefusesAnotherRocksdbAndStaysSilent) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  // Quiet without ROCKPOOL_VERBOSE, whatever ROCKPOOL_OPTIONS asks.
  Result r = Rockpool({"run", "--object=preload", "--", g_program_9});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "ok\n");
  EXPECT_EQ(r.err, "");

  const std::string stats = TempDir() + "/refused.stats";
  r = Rockpool({"run", "--object=preload", "--verbose", "--stats=" + stats, "--", g_program_9});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "ok\n");
  // --verbose: `run` says which object it forced, the process why it refused.
  EXPECT_EQ(Lines(r.err), 2u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("]: not serving this process: the running RocksDB is 9.0.0 ("));
  EXPECT_THAT(r.err, HasSubstr("librocksdb.so.9); "));
  EXPECT_THAT(r.err, HasSubstr("librockpool_preload.so is built for RocksDB "));

  absl::StatusOr<ProcessStats> s = ReadStatsFile(stats);
  ASSERT_TRUE(s.ok()) << s.status() << "\n" << ReadFile(stats);
  EXPECT_EQ(s->mode, "forward");
  EXPECT_EQ(s->total.leases, 0u);
  EXPECT_THAT(s->refused, StartsWith("the running RocksDB is 9.0.0 ("));
  r = Rockpool({"stats", stats});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": not served: the running RocksDB is 9.0.0 ("));
}

}  // namespace
}  // namespace rockpool::cli

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 6) {
    std::fprintf(stderr,
                 "usage: %s <rockpool> <librockpool_interpose.so> <program_on_rocksdb_9> "
                 "<program_on_other_build> <stub librocksdb.so.X.Y>\n",
                 argv[0]);
    return 2;
  }
  using namespace rockpool::cli;
  const std::string interpose = cli_test::Absolute(argv[2]);
  g_libdir = interpose.substr(0, interpose.rfind('/'));
  cli_test::SetRockpool(cli_test::Absolute(argv[1]), g_libdir);
  // As the runfiles tree lays them out: RUNPATH's $ORIGIN is the folder of
  // the path the loader is given.
  char cwd[PATH_MAX];
  const std::string here = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : ".";
  auto in_runfiles = [&](const char* p) { return p[0] == '/' ? p : here + "/" + p; };
  g_program_9 = in_runfiles(argv[3]);
  g_program_other_build = in_runfiles(argv[4]);
  g_stub_other_build = cli_test::Absolute(argv[5]);
  return RUN_ALL_TESTS();
}
