// rocksdb_plugin/own_file.h: the guest writes only files it created, never
// through a link, a FIFO, a directory, a hard link or another user's file.
// The cases needing another user's files (chown) run as root, as CI does.
#include "rocksdb_plugin/own_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rockpool {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

class OwnFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "own_file_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
    victim_ = dir_ + "/victim";
    Spit(victim_, "the victim's own contents\n");
    ASSERT_EQ(::chmod(victim_.c_str(), 0600), 0);
    path_ = dir_ + "/rp.stats";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Both ways of writing refuse `path_` as it stands, and the victim and
  // whatever is at the path stay as they were.
  void ExpectBothRefused(absl::string_view why) {
    const mode_t before = ModeOf(path_);
    for (bool append : {false, true}) {
      SCOPED_TRACE(append ? "append" : "replace");
      const absl::Status s = append ? AppendToOwnFile(path_, "rockpool report: x\n")
                                    : ReplaceOwnFile(path_, "rockpool report: x\n");
      EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
      EXPECT_NE(s.message().find(why), absl::string_view::npos) << s;
      EXPECT_NE(s.message().find(path_), absl::string_view::npos) << s;
      EXPECT_EQ(Slurp(victim_), "the victim's own contents\n");
      EXPECT_EQ(ModeOf(path_), before);
    }
  }

  static bool Root() { return geteuid() == 0; }

  std::string dir_;
  std::string victim_;
  std::string path_;
};

TEST_F(OwnFileTest, ReplaceCreatesTheFileWithMode0600WhateverTheUmask) {
  const mode_t old = ::umask(0);
  const absl::Status s = ReplaceOwnFile(path_, "line 1\n");
  ::umask(old);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Slurp(path_), "line 1\n");
  EXPECT_EQ(ModeOf(path_) & 07777, 0600u);
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"rp.stats", "victim"}));
}

TEST_F(OwnFileTest, ReplaceReplacesItsOwnFileAndLeavesNoTemporary) {
  ASSERT_TRUE(ReplaceOwnFile(path_, "first\n").ok());
  ASSERT_TRUE(ReplaceOwnFile(path_, "second\n", 0640).ok());
  EXPECT_EQ(Slurp(path_), "second\n");
  EXPECT_EQ(ModeOf(path_) & 07777, 0640u);
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"rp.stats", "victim"}));
}

TEST_F(OwnFileTest, AppendCreatesThenAppends) {
  ASSERT_TRUE(AppendToOwnFile(path_, "a\n").ok());
  ASSERT_TRUE(AppendToOwnFile(path_, "b\n").ok());
  EXPECT_EQ(Slurp(path_), "a\nb\n");
  EXPECT_EQ(ModeOf(path_) & 07777, 0600u);
}

TEST_F(OwnFileTest, PlantedSymlinkToAnotherFileIsRefused) {
  ASSERT_EQ(::symlink(victim_.c_str(), path_.c_str()), 0);
  ExpectBothRefused("symbolic link");
  EXPECT_TRUE(S_ISLNK(ModeOf(path_)));
}

TEST_F(OwnFileTest, DanglingSymlinkIsRefusedAndItsTargetNotCreated) {
  const std::string target = dir_ + "/would_be_created";
  ASSERT_EQ(::symlink(target.c_str(), path_.c_str()), 0);
  ExpectBothRefused("symbolic link");
  EXPECT_FALSE(fs::exists(fs::symlink_status(target)));
}

TEST_F(OwnFileTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  ExpectBothRefused("a FIFO");
}

TEST_F(OwnFileTest, DirectoryIsRefused) {
  ASSERT_EQ(::mkdir(path_.c_str(), 0700), 0);
  ExpectBothRefused("a directory");
}

TEST_F(OwnFileTest, HardLinkToAnotherFileIsRefused) {
  ASSERT_EQ(::link(victim_.c_str(), path_.c_str()), 0);
  ExpectBothRefused("hard links");
}

TEST_F(OwnFileTest, AnotherUsersFileIsRefused) {
  if (!Root()) GTEST_SKIP() << "needs root to give a file to another user";
  Spit(path_, "nobody's\n");
  ASSERT_EQ(::chown(path_.c_str(), kNobody, kNobody), 0);
  ExpectBothRefused("belongs to uid 65534");
  EXPECT_EQ(Slurp(path_), "nobody's\n");
}

TEST_F(OwnFileTest, WorldWritableDirectoryNeedsTheStickyBit) {
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  const absl::Status s = ReplaceOwnFile(path_, "x\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("sticky"), absl::string_view::npos) << s;
  EXPECT_EQ(AppendToOwnFile(path_, "x\n").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CheckOwnFileDirectory(path_).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(fs::exists(path_));
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);
  EXPECT_TRUE(CheckOwnFileDirectory(path_).ok());
  EXPECT_TRUE(ReplaceOwnFile(path_, "x\n").ok());
}

TEST_F(OwnFileTest, DirectoryReachedThroughAnotherUsersLinkIsRefused) {
  if (!Root()) GTEST_SKIP() << "needs root to give a link to another user";
  const std::string real = dir_ + "/real";
  const std::string link = dir_ + "/via";
  ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  // Our own link is followed.
  ASSERT_TRUE(ReplaceOwnFile(link + "/rp.stats", "x\n").ok());
  EXPECT_EQ(Slurp(real + "/rp.stats"), "x\n");
  // Another user's is not: they could point it anywhere.
  ASSERT_EQ(::lchown(link.c_str(), kNobody, kNobody), 0);
  const absl::Status s = ReplaceOwnFile(link + "/other", "x\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("symbolic link of uid 65534"), absl::string_view::npos) << s;
  EXPECT_FALSE(fs::exists(real + "/other"));
}

TEST_F(OwnFileTest, RelativeAndDotPaths) {
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  EXPECT_TRUE(ReplaceOwnFile("rel.stats", "r\n").ok());
  EXPECT_TRUE(ReplaceOwnFile("./sub/../rel2.stats", "r\n").code() != absl::StatusCode::kOk);
  ASSERT_EQ(::mkdir("sub", 0755), 0);
  EXPECT_TRUE(ReplaceOwnFile("./sub/../rel2.stats", "r\n").ok());
  fs::current_path(old);
  EXPECT_EQ(Slurp(dir_ + "/rel.stats"), "r\n");
  EXPECT_EQ(Slurp(dir_ + "/rel2.stats"), "r\n");
  EXPECT_EQ(ReplaceOwnFile(dir_ + "/", "x").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ReplaceOwnFile(dir_ + "/..", "x").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ReplaceOwnFile("", "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReplaceOwnFile(dir_ + "/missing/f", "x").code(), absl::StatusCode::kNotFound);
}

TEST_F(OwnFileTest, SymlinkLoopInTheDirectoryIsAnErrorNotAHang) {
  ASSERT_EQ(::symlink("loop_b", (dir_ + "/loop_a").c_str()), 0);
  ASSERT_EQ(::symlink("loop_a", (dir_ + "/loop_b").c_str()), 0);
  const absl::Status s = ReplaceOwnFile(dir_ + "/loop_a/f", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("symbolic links"), absl::string_view::npos) << s;
}

TEST(ParseFileModeTest, OctalPermissionsWithoutExecuteOrWorldWrite) {
  EXPECT_EQ(*ParseFileMode("0600"), 0600u);
  EXPECT_EQ(*ParseFileMode("640"), 0640u);
  EXPECT_EQ(*ParseFileMode("0664"), 0664u);
  EXPECT_EQ(*ParseFileMode("0"), 0u);
  for (const char* bad : {"", "0700", "0666", "0602", "rw", "0o600", "06000", "8", " 0600"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(ParseFileMode(bad).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace rockpool
