// Asking the dynamic loader where a program's library is: the listing
// parser on the loader's own formats, and real programs (Debian's db_bench
// and its librocksdb.so.7.8; a soname the program does not need).
#include "tools/rockpool/library_path.h"

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb_plugin/built_for_line.h"

namespace rockpool::cli {
namespace {

using ::testing::HasSubstr;

constexpr char kListing[] =
    "\tlinux-vdso.so.1 (0x00007ffd1b9e4000)\n"
    "\tlibrocksdb.so.7.8 => /lib/x86_64-linux-gnu/librocksdb.so.7.8 (0x00007f0234400000)\n"
    "\tlibrocksdb.so.9 => not found\n"
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f13bc9fa000)\n";

TEST(LibraryInListing, FoundMissingAndUnlisted) {
  absl::StatusOr<std::string> p = LibraryInListing(kListing, "librocksdb.so.7.8");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/lib/x86_64-linux-gnu/librocksdb.so.7.8");
  p = LibraryInListing(kListing, "librocksdb.so.9");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("librocksdb.so.9: not found"));
  p = LibraryInListing(kListing, "librocksdb.so.7");  // a prefix of a listed name is not it
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("not listed"));
  EXPECT_FALSE(LibraryInListing("", "librocksdb.so.7.8").ok());
}

TEST(ResolveLibrary, DbBenchThroughTheLoader) {
  absl::StatusOr<ProgramFile> f = ReadProgramFile("/usr/bin/db_bench");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::string> p = ResolveLibrary("/usr/bin/db_bench", *f, ROCKPOOL_ROCKSDB_SONAME);
  ASSERT_TRUE(p.ok()) << p.status();
  char* real = realpath(p->c_str(), nullptr);
  ASSERT_NE(real, nullptr) << *p;
  EXPECT_THAT(std::string(real), HasSubstr(ROCKPOOL_ROCKSDB_SONAME));
  std::free(real);
  EXPECT_FALSE(ResolveLibrary("/usr/bin/db_bench", *f, "libnot-needed.so.1").ok());
}

}  // namespace
}  // namespace rockpool::cli
