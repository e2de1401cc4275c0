// ROCKPOOL_VERBOSE (rocksdb_plugin/verbose.h): which values switch it
// on, the exact line SayVerbose writes (pid prefix, one newline, the length
// cut), read once. Runs say_verbose, a program linking
// //rocksdb_plugin:interpose, in a fresh process per setting.
//
// Usage: verbose_test <say_verbose>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "rocksdb_plugin/verbose.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

namespace rockpool {
namespace {

using plugin_test::ReadFile;
using plugin_test::Sh;

std::string g_say;

struct Said {
  int exit_code = -1;
  std::string pid;  // the process's own pid, from its stdout
  bool enabled = false;
  std::string err;  // its stderr, exactly
};

// Runs say_verbose with `env` (e.g. "ROCKPOOL_VERBOSE=1", or "" for unset).
Said Say(const std::string& env, const std::string& args) {
  const std::string dir = plugin_test::NewTempDir("verbose");
  const std::string err = dir + "/err.txt";
  const plugin_test::Result r =
      Sh("(env -u ROCKPOOL_VERBOSE " + env + " " + g_say + " " + args + " 2>" + err + ")");
  Said s;
  s.exit_code = r.exit_code;
  const size_t p = r.output.find("pid=");
  const size_t e = r.output.find(" enabled=");
  if (p != std::string::npos && e != std::string::npos) {
    s.pid = r.output.substr(p + 4, e - p - 4);
    s.enabled = r.output.compare(e, 10, " enabled=1") == 0;
  }
  s.err = ReadFile(err);
  return s;
}

TEST(VerboseTest, OneIsVerboseWithThePid) {
  const Said s = Say("ROCKPOOL_VERBOSE=1", "hello 'second line'");
  ASSERT_EQ(s.exit_code, 0) << s.err;  // 3: errno changed
  ASSERT_FALSE(s.pid.empty());
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.err, "rockpool[" + s.pid + "]: hello\nrockpool[" + s.pid + "]: second line\n");
}

TEST(VerboseTest, EverythingElseIsQuietWithoutAMessage) {
  for (const char* env : {"", "ROCKPOOL_VERBOSE=", "ROCKPOOL_VERBOSE=0", "ROCKPOOL_VERBOSE=true",
                          "ROCKPOOL_VERBOSE=yes", "ROCKPOOL_VERBOSE=2", "ROCKPOOL_VERBOSE=' 1'",
                          "ROCKPOOL_VERBOSE='1 '", "ROCKPOOL_VERBOSE=01"}) {
    const Said s = Say(env, "hello");
    EXPECT_EQ(s.exit_code, 0) << env;
    EXPECT_FALSE(s.enabled) << env;
    EXPECT_EQ(s.err, "") << env;
  }
}

TEST(VerboseTest, ATrailingNewlineIsNotDoubled) {
  const Said s = Say("ROCKPOOL_VERBOSE=1", "'--newline=ends in a newline' ''");
  ASSERT_EQ(s.exit_code, 0);
  EXPECT_EQ(s.err, "rockpool[" + s.pid + "]: ends in a newline\nrockpool[" + s.pid + "]: \n");
}

TEST(VerboseTest, LongLinesAreCutToOneAtomicWrite) {
  const Said fits = Say("ROCKPOOL_VERBOSE=1", "--long=100");
  EXPECT_EQ(fits.err, "rockpool[" + fits.pid + "]: " + std::string(100, 'x') + "\n");
  const Said cut = Say("ROCKPOOL_VERBOSE=1", "--long=10000");
  ASSERT_EQ(cut.exit_code, 0);
  ASSERT_EQ(cut.err.size(), kVerboseLineLimit);
  const std::string prefix = "rockpool[" + cut.pid + "]: ";
  EXPECT_EQ(cut.err.rfind(prefix, 0), 0u);
  EXPECT_EQ(cut.err.substr(cut.err.size() - 4), "...\n");
  EXPECT_EQ(cut.err.find_first_not_of('x', prefix.size()), cut.err.size() - 4);
}

TEST(VerboseTest, ReadOncePerProcess) {
  const Said s = Say("", "--setenv-after hello");
  ASSERT_EQ(s.exit_code, 0);
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.err, "");  // setenv after the first call changes nothing
}

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <say_verbose>\n", argv[0]);
    return 2;
  }
  rockpool::g_say = std::filesystem::absolute(argv[1]).string();
  return RUN_ALL_TESTS();
}
