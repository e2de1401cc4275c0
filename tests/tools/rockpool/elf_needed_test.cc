// ELF64 DT_NEEDED reading on real programs: Debian's db_bench links
// Debian's librocksdb.so.X.Y, gzip does not; scripts, other files, truncated ELF.
#include "tools/rockpool/elf_needed.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb_plugin/built_for_line.h"
#include "tools/rockpool/object_choice.h"

namespace rockpool::cli {

// The folder of the real librockpool_preload.so (the test's argument).
std::string g_objects;

namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ElfNeeded, DbBenchNeedsLibrocksdb) {
  absl::StatusOr<ProgramFile> f = ReadProgramFile("/usr/bin/db_bench");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, ProgramFile::Kind::kElf);
  EXPECT_THAT(f->needed, Contains(ROCKPOOL_ROCKSDB_SONAME));
  EXPECT_EQ(f->interpreter, "/lib64/ld-linux-x86-64.so.2");  // PT_INTERP
  EXPECT_EQ(f->soname, "");
  EXPECT_THAT(f->needed, Contains("libc.so.6"));
  EXPECT_EQ(RocksdbDependency(*f), ROCKPOOL_ROCKSDB_SONAME);
  f = ReadProgramFile("/usr/lib/x86_64-linux-gnu/" ROCKPOOL_ROCKSDB_SONAME);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->soname, ROCKPOOL_ROCKSDB_SONAME);  // DT_SONAME
}

TEST(ElfNeeded, GzipNeedsNoRocksdb) {
  absl::StatusOr<ProgramFile> f = ReadProgramFile("/bin/gzip");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, ProgramFile::Kind::kElf);
  EXPECT_THAT(f->needed, Contains("libc.so.6"));
  EXPECT_EQ(RocksdbDependency(*f), "");
}

TEST(ElfNeeded, SharedLibraryToo) {
  absl::StatusOr<ProgramFile> f =
      ReadProgramFile("/usr/lib/x86_64-linux-gnu/" ROCKPOOL_ROCKSDB_SONAME);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(f->needed, Contains("libzstd.so.1"));
}

TEST(ElfNeeded, ScriptIsNotElf) {
  const std::string path = TempPath("script.sh");
  WriteFile(path, "#! /bin/sh -e\nexec db_bench \"$@\"\n");
  absl::StatusOr<ProgramFile> f = ReadProgramFile(path);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, ProgramFile::Kind::kScript);
  EXPECT_EQ(f->interpreter, "/bin/sh -e");
  EXPECT_TRUE(f->needed.empty());
}

TEST(ElfNeeded, OtherFile) {
  const std::string path = TempPath("text.txt");
  WriteFile(path, "hello\n");
  absl::StatusOr<ProgramFile> f = ReadProgramFile(path);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, ProgramFile::Kind::kOther);
}

TEST(ElfNeeded, TruncatedElfIsDataLoss) {
  const std::string path = TempPath("truncated");
  WriteFile(path, ReadFile("/bin/gzip").substr(0, 100));
  absl::StatusOr<ProgramFile> f = ReadProgramFile(path);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss) << f.status();
  EXPECT_THAT(std::string(f.status().message()), HasSubstr(path));
}

TEST(ElfNeeded, MissingFile) {
  absl::StatusOr<ProgramFile> f = ReadProgramFile(TempPath("does-not-exist"));
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
}

TEST(ObjectChoice, PreloadForDbBenchInterposerOtherwise) {
  setenv(kLibDirVariable, g_objects.c_str(), 1);
  absl::StatusOr<ObjectChoice> c = ChooseObject("/usr/bin/db_bench");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, ObjectKind::kPreload) << c->reason;
  EXPECT_THAT(c->reason, HasSubstr(ROCKPOOL_ROCKSDB_SONAME " (DT_NEEDED), found at "));
  EXPECT_THAT(c->reason, HasSubstr(", the build librockpool_preload.so is for"));
  // Without a preload object to read, nobody can tell what it is built for.
  setenv(kLibDirVariable, "/nonexistent/rockpool", 1);
  c = ChooseObject("/usr/bin/db_bench");
  unsetenv(kLibDirVariable);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, ObjectKind::kInterpose);
  EXPECT_THAT(c->reason, HasSubstr("/nonexistent/rockpool/librockpool_preload.so: "));
  c = ChooseObject("/bin/gzip");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, ObjectKind::kInterpose);
  const std::string script = TempPath("wrapper.sh");
  WriteFile(script, "#!/bin/sh\n");
  c = ChooseObject(script);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, ObjectKind::kInterpose);
  EXPECT_THAT(c->reason, HasSubstr("script"));
}

TEST(ObjectChoice, ForcedAndLibDir) {
  setenv(kLibDirVariable, "/opt/rp", 1);
  absl::StatusOr<ObjectChoice> c = ChooseObject("/bin/gzip", ObjectKind::kPreload);
  unsetenv(kLibDirVariable);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, ObjectKind::kPreload);
  EXPECT_EQ(c->object_path, "/opt/rp/librockpool_preload.so");
  EXPECT_THAT(c->reason, HasSubstr("--object=preload"));
  c = ChooseObject("/bin/gzip");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->object_path, "/usr/lib/x86_64-linux-gnu/rockpool/librockpool_interpose.so");
}

TEST(ResolveProgram, LikeExecvp) {
  absl::StatusOr<std::string> p = ResolveProgram("db_bench");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(access(p->c_str(), X_OK), 0);
  EXPECT_EQ(ResolveProgram("./no/such/program").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ResolveProgram("no-such-program-anywhere").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace rockpool::cli

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <librockpool_preload.so>\n", argv[0]);
    return 2;
  }
  const std::string preload = argv[1];
  char* dir = realpath(preload.substr(0, preload.rfind('/')).c_str(), nullptr);
  rockpool::cli::g_objects = dir != nullptr ? dir : ".";
  std::free(dir);
  return RUN_ALL_TESTS();
}
