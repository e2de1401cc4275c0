// The line naming the RocksDB build librockpool_preload.so is for: format
// and parse, finding it among an object file's bytes, and the build date a
// real librocksdb carries (Debian's, the one this build linked).
#include "rocksdb_plugin/built_for.h"

#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb_plugin/built_for_line.h"

namespace rockpool {
namespace {

using ::testing::Optional;

const RocksdbBuild kBuild{"7.8.3", "librocksdb.so.7.8", "2023-01-07 12:33:41"};

TEST(BuiltFor, FormatAndParseRoundTrip) {
  const std::string line = FormatBuiltFor(kBuild);
  EXPECT_EQ(line, "version=7.8.3 soname=librocksdb.so.7.8 build_date=2023-01-07 12:33:41");
  EXPECT_THAT(ParseBuiltFor(line), Optional(kBuild));
  const RocksdbBuild no_date{"9.11.2", "librocksdb.so.9", ""};
  EXPECT_THAT(ParseBuiltFor(FormatBuiltFor(no_date)), Optional(no_date));
  EXPECT_EQ(kBuild.ToString(), "RocksDB 7.8.3 (librocksdb.so.7.8, built 2023-01-07 12:33:41)");
}

TEST(BuiltFor, ParseRejectsMalformedLines) {
  EXPECT_EQ(ParseBuiltFor(""), std::nullopt);
  EXPECT_EQ(ParseBuiltFor("version=7.8.3"), std::nullopt);
  EXPECT_EQ(ParseBuiltFor("version= soname=librocksdb.so.7.8 build_date="), std::nullopt);
  EXPECT_EQ(ParseBuiltFor("version=7.8.3 soname=libz.so.1 build_date="), std::nullopt);
  EXPECT_EQ(ParseBuiltFor("version=7.8.3 build_date=x soname=librocksdb.so.7.8"), std::nullopt);
}

TEST(BuiltFor, FindsTheFirstLineThatParsesInObjectBytes) {
  // The prefix alone (a parser's own constant) comes first in the file.
  std::string bytes(
      "\x7f"
      "ELF junk",
      8);
  bytes += std::string(kBuiltForPrefix) + '\0' + "more" + '\0';
  bytes += std::string(kBuiltForPrefix) + FormatBuiltFor(kBuild) + '\0' + "tail";
  EXPECT_THAT(FindBuiltFor(bytes), Optional(kBuild));
  EXPECT_EQ(FindBuiltFor("no line here"), std::nullopt);
}

TEST(BuiltFor, EachObjectFindsOnlyItsOwnPrefix) {
  // A native object's line is not a preload object's, and the reverse.
  const std::string native = std::string(kNativeBuiltForPrefix) + FormatBuiltFor(kBuild) + '\0';
  const std::string preload = std::string(kBuiltForPrefix) + FormatBuiltFor(kBuild) + '\0';
  EXPECT_THAT(FindBuiltFor(native, kNativeBuiltForPrefix), Optional(kBuild));
  EXPECT_EQ(FindBuiltFor(native), std::nullopt);
  EXPECT_EQ(FindBuiltFor(preload, kNativeBuiltForPrefix), std::nullopt);
  EXPECT_EQ(FindBuiltFor(preload, ""), std::nullopt);
}

TEST(BuiltFor, BuildDateOfDebiansLibrary) {
  std::string bytes("x\0rocksdb_build_date:2000-01-01 00:00:00\0y", 43);
  EXPECT_THAT(FindBuildDate(bytes), Optional(std::string("2000-01-01 00:00:00")));
  EXPECT_EQ(FindBuildDate("rocksdb_build_da"), std::nullopt);
  // The library this build links: the repository rule read the same date.
  std::ifstream in("/usr/lib/x86_64-linux-gnu/" ROCKPOOL_ROCKSDB_SONAME, std::ios::binary);
  const std::string library((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(library.empty());
  EXPECT_THAT(FindBuildDate(library), Optional(std::string(ROCKPOOL_ROCKSDB_BUILD_DATE)));
  EXPECT_STRNE(ROCKPOOL_ROCKSDB_BUILD_DATE, "");
}

}  // namespace
}  // namespace rockpool
