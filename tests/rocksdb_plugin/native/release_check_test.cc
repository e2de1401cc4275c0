// release_check.h: when librockpool_native.so registers. CompareRelease is
// pure (any running version and build date); CheckRunningRelease asks the
// RocksDB this test runs on, which is the one it was compiled against.
#include "rocksdb_plugin/native/release_check.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "build_identity.h"
#include "gtest/gtest.h"
#include "rocksdb/advanced_compression.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/built_for.h"
#include "rocksdb_plugin/built_for_line.h"

namespace rockpool::native {
namespace {

constexpr char kVersion[] = ROCKPOOL_ROCKSDB_VERSION;
constexpr char kDate[] = ROCKPOOL_ROCKSDB_BUILD_DATE;

std::string BuiltFor() {
  return absl::StrCat("librockpool_native.so is built for RocksDB ", kVersion, " (",
                      ROCKPOOL_ROCKSDB_SONAME, ", built ", kDate[0] ? kDate : "<unknown>", ")");
}

TEST(ReleaseCheck, BuiltForLineNamesTheHeadersReleaseAndTheLibrarysBuild) {
  EXPECT_EQ(NativeBuiltForLine(),
            absl::StrCat(kNativeBuiltForPrefix, "version=", kVersion,
                         " soname=", ROCKPOOL_ROCKSDB_SONAME, " build_date=", kDate));
  EXPECT_EQ(std::string(kVersion), rocksdb::GetRocksVersionAsString(true));
}

TEST(ReleaseCheck, TheSameReleaseAndBuildIsAccepted) {
  EXPECT_EQ(CompareRelease(kVersion, kDate), "");
}

TEST(ReleaseCheck, AnotherReleaseIsRefusedWithBothNamed) {
  EXPECT_EQ(CompareRelease("10.9.1", kDate),
            absl::StrCat("the running RocksDB is 10.9.1; ", BuiltFor()));
  // A patch release is another release: its inline code may differ.
  const std::string next_patch =
      absl::StrCat(ROCKSDB_MAJOR, ".", ROCKSDB_MINOR, ".", ROCKSDB_PATCH + 1);
  EXPECT_EQ(CompareRelease(next_patch, kDate),
            absl::StrCat("the running RocksDB is ", next_patch, "; ", BuiltFor()));
}

TEST(ReleaseCheck, TheSameReleaseFromAnotherBuildIsRefusedWhenTheObjectKnowsItsBuild) {
  if (kDate[0] == '\0') GTEST_SKIP() << "linked to a static librocksdb.a: no build date recorded";
  EXPECT_EQ(CompareRelease(kVersion, "2001-01-01 00:00:00"),
            absl::StrCat("the running RocksDB is ", kVersion,
                         " built 2001-01-01 00:00:00, another build; ", BuiltFor()));
  EXPECT_EQ(CompareRelease(kVersion, ""),
            absl::StrCat("the running RocksDB is ", kVersion, " built <unknown>, another build; ",
                         BuiltFor()));
}

TEST(ReleaseCheck, TheRocksdbThisTestRunsOnIsTheOneItWasBuiltFor) {
  EXPECT_EQ(CheckRunningRelease(), "");
}

// What a process whose object refused (so nothing named rockpool is
// registered, as in this test) gets for an options string naming rockpool:
// by default RocksDB drops the id it cannot load and the built-in manager
// serves; only a caller that asks for strict parsing gets an error, before
// any DB is opened.
TEST(ReleaseCheck, UnregisteredRockpoolIsIgnoredByDefaultAndAnErrorWhenStrict) {
  const std::string text = "compression_manager=rockpool;compression=kZlibCompression";
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::ConfigOptions lenient;  // ignore_unsupported_options = true
  ASSERT_TRUE(lenient.ignore_unsupported_options);
  const rocksdb::Status ignored =
      rocksdb::GetColumnFamilyOptionsFromString(lenient, rocksdb::ColumnFamilyOptions(), text, &cf);
  EXPECT_TRUE(ignored.ok()) << ignored.ToString();
  EXPECT_EQ(cf.compression_manager, nullptr);
  EXPECT_EQ(cf.compression, rocksdb::kZlibCompression);

  rocksdb::ConfigOptions strict;
  strict.ignore_unsupported_options = false;
  const rocksdb::Status refused =
      rocksdb::GetColumnFamilyOptionsFromString(strict, rocksdb::ColumnFamilyOptions(), text, &cf);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();  // as 11.8.1 says
  EXPECT_NE(refused.ToString().find("Could not load CompressionManager: rockpool"),
            std::string::npos)
      << refused.ToString();
}

}  // namespace
}  // namespace rockpool::native
