// The `rockpool` binary end to end: --version, check on real programs, run
// (bad options and a missing object stop it before PROGRAM starts;
// LD_PRELOAD composed once; PROGRAM's exit status and signals passed
// through; real stats files written by the interposer under codec_loop) and
// stats on real, missing and corrupt files.
//
// Usage: rockpool_cli_test <rockpool> <librockpool_interpose.so> <codec_loop>
// (the objects' folder is ROCKPOOL_LIBDIR; the preload object is beside the
// interposer).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rockpool_version.h"
#include "rocksdb_plugin/built_for_line.h"
#include "tests/tools/rockpool/cli_runner.h"
#include "tools/json/json_parse.h"
#include "tools/rockpool/stats_file.h"

namespace rockpool::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using namespace ::rockpool::cli::cli_test;

std::string g_interpose, g_libdir, g_codec_loop;

TEST(RockpoolCli, VersionAndHelp) {
  Result r = Rockpool({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "rockpool " ROCKPOOL_VERSION "\n");
  r = Rockpool({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("rockpool run [flags] -- PROGRAM"));
  EXPECT_THAT(r.out, HasSubstr("setuid"));
  r = Rockpool({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
}

TEST(RockpoolCli, CheckNamesTheObjectAndTheDependency) {
  Result r = Rockpool({"check", "db_bench"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      StartsWith("librockpool_preload.so: /usr/bin/db_bench needs " ROCKPOOL_ROCKSDB_SONAME));
  EXPECT_THAT(r.out, HasSubstr("object: " + g_libdir + "/librockpool_preload.so"));
  r = Rockpool({"check", "/bin/gzip"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("librockpool_interpose.so: /bin/gzip needs no librocksdb.so"));
  const std::string script = TempDir() + "/wrapper.sh";
  std::ofstream(script) << "#!/bin/sh\nexec db_bench \"$@\"\n";
  r = Rockpool({"check", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("is a script (#!/bin/sh), not ELF"));
  r = Rockpool({"check", "no-such-program-anywhere"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
}

TEST(RockpoolCli, BadOptionsExit2WithoutStartingTheProgram) {
  const std::string marker = TempDir() + "/started";
  const std::string touch = "touch " + marker;
  Result r = Rockpool({"run", "--options=max_idle=4", "--", "/bin/sh", "-c", touch});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("unknown option \"max_idle\""));
  r = Rockpool({"run", "--", "/bin/sh", "-c", touch}, {"ROCKPOOL_OPTIONS=max_idle_per_key=x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  r = Rockpool({"run", "--object=neither", "--", "/bin/sh", "-c", touch});
  EXPECT_EQ(r.exit_code, 2);
  r = Rockpool({"run", "--", "/bin/sh", "-c", touch}, {"ROCKPOOL_LIBDIR=/nonexistent/rockpool"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/rockpool/librockpool_interpose.so"));
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program was started";
  r = Rockpool({"run", "--", "no-such-program-anywhere"});
  EXPECT_EQ(r.exit_code, 127);
}

TEST(RockpoolCli, EnvironmentOnceExitStatusAndSignalsPassedThrough) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string print =
      "printf '%s\\n' \"$LD_PRELOAD\" \"$ROCKPOOL_OPTIONS\" \"${ROCKPOOL_STATS-}\" "
      "\"${ROCKPOOL_VERBOSE-}\"; exit 7";
  Result r = Rockpool({"run", "--", "sh", "-c", print}, {"LD_PRELOAD=" + g_interpose});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(r.out, g_interpose + "\nmax_idle_per_key=8\n\n\n");
  r = Rockpool({"run", "--stats=/tmp/x.%p", "--verbose", "--", "sh", "-c", print},
               {"ROCKPOOL_OPTIONS=idle_seconds=5"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(r.out, g_interpose + "\nidle_seconds=5\n/tmp/x.%p\n1\n");
  r = Rockpool({"run", "--options=max_idle_per_key=2", "--", "sh", "-c", print},
               {"ROCKPOOL_OPTIONS=idle_seconds=5", "LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6"});
  EXPECT_EQ(r.out, g_interpose + ":/lib/x86_64-linux-gnu/libm.so.6\nmax_idle_per_key=2\n\n\n");
  r = Rockpool({"run", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.signal, SIGTERM);
}

std::vector<std::string> FilesStartingWith(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind(prefix, 0) == 0) out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  return out;
}

TEST(RockpoolCli, StatsOfARealInterposedProcess) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string dir = TempDir() + "/stats";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  Result r = Rockpool({"run", "--stats=" + dir + "/codec_loop.%p", "--", g_codec_loop, "200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> files = FilesStartingWith(dir, "codec_loop.");
  ASSERT_EQ(files.size(), 1u);
  absl::StatusOr<ProcessStats> s = ReadStatsFile(files[0]);
  ASSERT_TRUE(s.ok()) << s.status() << "\n" << ReadFile(files[0]);
  EXPECT_EQ(s->event, "exit");
  EXPECT_EQ(s->mode, "pool");
  // 200 rounds of deflate, inflate, zstd compress and decompress contexts.
  EXPECT_EQ(s->total.leases, 800u);
  EXPECT_GE(s->total.created, 4u);
  EXPECT_GE(s->total.reused, 780u);
  EXPECT_EQ(s->deflate.leases, 200u);
  EXPECT_EQ(s->in_use, 0u);
  EXPECT_GT(s->saved_bytes(), 0u);
  EXPECT_EQ(s->zstd_state, "pooled");
  EXPECT_EQ(s->zlib_state, "pooled");

  r = Rockpool({"stats", files[0]});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pid " + std::to_string(s->pid) + " "));
  EXPECT_THAT(r.out, HasSubstr("total (1 process)"));
  r = Rockpool({"stats", "--json", files[0], files[0]});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<json::Value> doc = json::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.status() << r.out;
  EXPECT_EQ(doc->Find("total")->Find("leases")->text(), "1600");

  const std::string corrupt = dir + "/corrupt";
  std::ofstream(corrupt) << ReadFile(files[0]).substr(0, 150) << "\n";
  r = Rockpool({"stats", files[0], corrupt});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_THAT(r.err, StartsWith("rockpool stats: " + corrupt + ": malformed report line"));
  r = Rockpool({"stats", dir + "/missing"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr(dir + "/missing"));
}

TEST(RockpoolCli, StatsPathsInUnsafeDirectoriesAreRefusedBeforeTheProgramStarts) {
  const std::string dir = TempDir() + "/open_dir";
  const std::string marker = TempDir() + "/open_dir_marker";
  ASSERT_EQ(system(("mkdir -p " + dir + " && chmod 0777 " + dir).c_str()), 0);
  const std::string touch = "touch " + marker;
  Result r = Rockpool({"run", "--stats=" + dir + "/rp.%p", "--", "/bin/sh", "-c", touch});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("writable by every user and has no sticky bit"));
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program was started";
  r = Rockpool({"run", "--stats=" + TempDir() + "/no/such/dir/rp", "--", "/bin/sh", "-c", touch});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("No such file or directory"));
  // With the sticky bit (as /tmp has), the objects' own checks suffice.
  if (kAsan) return;  // the program would start with an ASan-built object preloaded
  ASSERT_EQ(chmod(dir.c_str(), 01777), 0);
  r = Rockpool({"run", "--stats=" + dir + "/rp.%p", "--", "/bin/sh", "-c", touch});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(access(marker.c_str(), F_OK), 0);
}

TEST(RockpoolCli, StatsWithoutAPathGoToTheUsersPrivateDirectory) {
  if (kAsan) GTEST_SKIP() << "built with ASan";
  const std::string runtime = TempDir() + "/xdg_runtime";
  ASSERT_EQ(system(("rm -rf " + runtime + " && mkdir -m 0700 " + runtime).c_str()), 0);
  const std::string xdg = "XDG_RUNTIME_DIR=" + runtime;
  Result r = Rockpool({"stats"}, {xdg});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  r = Rockpool({"run", "--stats", "--", g_codec_loop, "20"}, {xdg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dir = runtime + "/rockpool";
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  const std::vector<std::string> files = FilesStartingWith(dir, "");
  ASSERT_EQ(files.size(), 3u);  // ".", "..", and the process's file
  r = Rockpool({"stats"}, {xdg});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("total (1 process)"));
  // A directory others may write is not private: refused.
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  r = Rockpool({"run", "--stats", "--", "/bin/true"}, {xdg});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is writable by others"));
  if (geteuid() != 0) {  // root's default is /run/rockpool: not the test's to create
    r = Rockpool({"run", "--stats", "--", "/bin/true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("XDG_RUNTIME_DIR is not set"));
  }
}

}  // namespace
}  // namespace rockpool::cli

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <rockpool> <librockpool_interpose.so> <codec_loop>\n", argv[0]);
    return 2;
  }
  using namespace rockpool::cli;
  g_interpose = cli_test::Absolute(argv[2]);
  g_libdir = g_interpose.substr(0, g_interpose.rfind('/'));
  g_codec_loop = cli_test::Absolute(argv[3]);
  cli_test::SetRockpool(cli_test::Absolute(argv[1]), g_libdir);
  return RUN_ALL_TESTS();
}
