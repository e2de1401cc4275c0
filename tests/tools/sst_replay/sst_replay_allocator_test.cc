// sst_replay --allocator end to end, on the embedded default workload (1 MiB,
// blocks mode): the report names the allocator, leads with the felt figures
// (wall, CPU, minor faults, peak RSS of each whole child), each child runs
// under the allocator asked for and says which one served its malloc, and
// `all` puts every installed allocator side by side. jemalloc and tcmalloc
// are run wherever they are installed (tools/setup.sh installs both; CI has
// them): a missing one is skipped with a message, never silently. Sanitizer
// builds refuse to preload an allocator, and these tests expect that there.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/sst_replay/replay_cli.h"

namespace rockpool {
namespace {

using namespace sst_replay_testing;  // NOLINT: the suites' shared helpers
using ::testing::HasSubstr;

constexpr bool kSanitizer = !kMallocCounter;
constexpr char kJemalloc[] = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
constexpr char kTcmalloc[] = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4";
const char* const kFelt[] = {"felt_wall_ns", "felt_cpu_ns", "felt_minor_faults",
                             "felt_peak_rss_bytes"};

bool Installed(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0;
}

std::vector<std::string> Small(std::vector<std::string> more) {
  std::vector<std::string> args = {"--mode=blocks", "--workload_mb=1"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// The felt figures of one allocator's runs are there and positive.
void ExpectFelt(const std::map<std::string, std::string>& kv, const std::string& allocator) {
  for (const char* key : kFelt) {
    for (const char* strategy : {"stock", "pooled"}) {
      EXPECT_GT(Num(kv, absl::StrCat("blocks.allocator.", allocator, ".", strategy, ".", key)), 0)
          << allocator << " " << strategy << " " << key;
    }
    EXPECT_NE(Str(kv, absl::StrCat("blocks.allocator.", allocator, ".verdict.", key)), "");
  }
}

TEST(SstReplayAllocatorTest, GlibcReportLeadsWithFeltFiguresAndNamesTheAllocator) {
  Outcome o = Replay(Small({"--repeat=2", "--allocator=glibc", "--json"}));
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "allocator"), "glibc");
  EXPECT_EQ(Str(kv, "blocks.allocators"), "glibc");
  EXPECT_EQ(Str(kv, "blocks.allocator.glibc.preload"), "");
  EXPECT_EQ(Str(kv, "blocks.allocator.glibc.active.name"),
            kSanitizer ? "sanitizer runtime" : "glibc");
  if (!kSanitizer) {
    EXPECT_THAT(Str(kv, "blocks.allocator.glibc.active.object"), HasSubstr("libc.so"));
    EXPECT_THAT(Str(kv, "blocks.allocator.glibc.active.evidence"), HasSubstr("mallinfo2"));
  }
  ExpectFelt(kv, "glibc");

  Outcome table = Replay(Small({"--repeat=2"}));  // glibc is the default
  ASSERT_EQ(table.code, 0) << table.err;
  const size_t felt = table.out.find("felt, each child process whole");
  ASSERT_NE(felt, std::string::npos) << table.out;
  EXPECT_LT(felt, table.out.find("codec lib bytes allocated")) << "allocation comes second";
  for (const char* row : {"wall time", "CPU time (user+sys)", "minor page faults", "peak RSS"}) {
    EXPECT_THAT(table.out.substr(felt), HasSubstr(row));
  }
  EXPECT_THAT(table.out,
              HasSubstr(kSanitizer ? "allocator: sanitizer runtime" : "allocator: glibc 2."));
  EXPECT_THAT(table.out, HasSubstr("checked in every child"));
}

TEST(SstReplayAllocatorTest, JemallocServesTheChildren) {
  if (!Installed(kJemalloc)) {
    GTEST_SKIP() << kJemalloc << " is not installed (Debian's libjemalloc2)";
  }
  Outcome o = Replay(Small({"--repeat=2", "--allocator=jemalloc", "--json"}));
  if (kSanitizer) {
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(Lines(o.err), 1) << o.err;
    EXPECT_THAT(o.err, HasSubstr("sst_replay: --allocator=jemalloc: this sst_replay is a "
                                 "sanitizer build"));
    return;
  }
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "allocator"), "jemalloc");
  EXPECT_EQ(Str(kv, "blocks.allocator.jemalloc.preload"), kJemalloc);
  // What the children found serving their malloc, not what was asked for.
  EXPECT_EQ(Str(kv, "blocks.allocator.jemalloc.active.name"), "jemalloc");
  EXPECT_EQ(Str(kv, "blocks.allocator.jemalloc.active.object"), kJemalloc);
  const std::string evidence = Str(kv, "blocks.allocator.jemalloc.active.evidence");
  EXPECT_THAT(evidence, HasSubstr("raised jemalloc's thread.allocated"));
  EXPECT_THAT(evidence, HasSubstr(absl::StrCat("/proc/self/maps maps ", kJemalloc)));
  EXPECT_THAT(evidence, HasSubstr("operator new: its own (counted)"));
  ExpectFelt(kv, "jemalloc");
  EXPECT_GT(Num(kv, "blocks.pooled.process_bytes"), 0);
}

TEST(SstReplayAllocatorTest, AllPutsEveryInstalledAllocatorSideBySide) {
  std::vector<std::string> expected = {"glibc"};
  if (Installed(kJemalloc)) expected.push_back("jemalloc");
  if (Installed(kTcmalloc)) expected.push_back("tcmalloc");
  Outcome o = Replay(Small({"--repeat=1", "--allocator=all", "--json"}));
  if (kSanitizer && expected.size() > 1) {
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(Lines(o.err), 1) << o.err;
    EXPECT_THAT(o.err, HasSubstr("--allocator=all: this sst_replay is a sanitizer build"));
    return;
  }
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "blocks.allocators"), absl::StrJoin(expected, ","));
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");  // every allocator's outputs, byte for byte
  const double glibc_bytes = Num(kv, "blocks.allocator.glibc.stock.process_bytes");
  for (const std::string& name : expected) {
    if (!kSanitizer) {
      EXPECT_EQ(Str(kv, absl::StrCat("blocks.allocator.", name, ".active.name")), name);
      // The counter counts the same calls under every allocator (operator
      // new included, which jemalloc and tcmalloc serve without malloc).
      EXPECT_NEAR(Num(kv, absl::StrCat("blocks.allocator.", name, ".stock.process_bytes")),
                  glibc_bytes, glibc_bytes * 0.02)
          << name;
    }
    ExpectFelt(kv, name);
  }

  Outcome table = Replay(Small({"--repeat=1", "--allocator=all"}));
  ASSERT_EQ(table.code, 0) << table.err;
  // The column groups' header: the allocators' names in order on one line.
  const size_t felt = table.out.find("felt, each child process whole");
  ASSERT_NE(felt, std::string::npos) << table.out;
  const size_t line = table.out.find('\n', felt) + 1;
  const std::string header = table.out.substr(line, table.out.find('\n', line) - line);
  size_t at = 0;
  for (const std::string& name : expected) {
    at = header.find(name, at);
    EXPECT_NE(at, std::string::npos) << name << " in: " << header;
  }
  EXPECT_THAT(table.out, HasSubstr(expected.size() > 1 ? "allocators: glibc = " : "allocator: "));
}

// The child checks what serves its malloc: a user's LD_PRELOAD that puts
// another allocator in front of glibc fails the run with one line.
TEST(SstReplayAllocatorTest, AnotherAllocatorInTheUsersPreloadFailsTheRun) {
  if (kSanitizer) GTEST_SKIP() << "a sanitizer build cannot run with an allocator preloaded";
  if (!Installed(kJemalloc)) {
    GTEST_SKIP() << kJemalloc << " is not installed (Debian's libjemalloc2)";
  }
  ASSERT_EQ(setenv("LD_PRELOAD", kJemalloc, 1), 0);
  Outcome o = Replay(Small({"--repeat=1", "--allocator=glibc"}));
  unsetenv("LD_PRELOAD");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(Lines(o.err), 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--allocator=glibc: malloc in this child is served by jemalloc"));
  EXPECT_THAT(o.err, HasSubstr(absl::StrCat("LD_PRELOAD=", kJemalloc, " preloads it")));
}

TEST(SstReplayAllocatorTest, BadAllocatorsExitTwoWithOneLine) {
  const std::string dir = CliTempDir();
  const std::string text = dir + "/libnotes.so";
  std::ofstream(text) << "plain text, not an ELF object\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tcmalloc2", "want glibc, jemalloc, tcmalloc, all, or the path of a shared object"},
      {dir + "/libmissing.so", "cannot open: No such file or directory"},
      {text, "not an ELF shared object (no ELF magic number)"},
      {SstReplayBinary(), "a position-independent executable, not a shared object"},
  };
  for (const auto& [value, message] : cases) {
    Outcome o = Replay(Small({"--repeat=1", "--allocator=" + value}));
    EXPECT_EQ(o.code, 2) << value << ": " << o.err;
    EXPECT_EQ(Lines(o.err), 1) << o.err;
    EXPECT_THAT(o.err, HasSubstr(absl::StrCat("sst_replay: --allocator=", value, ": ", message)));
    EXPECT_EQ(o.out, "");
  }
}

}  // namespace
}  // namespace rockpool
