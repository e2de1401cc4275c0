// rocksdb_plugin/option_glue.h, the option glue both faces share, through
// RocksDB's own OptionTypeInfo API. Compiled against whichever RocksDB
// @rocksdb is: Debian's 7.8.3 here (the legacy face) and an upstream >= 10.4
// install in //tests/rocksdb_plugin/native (the native face).
#include "rocksdb_plugin/option_glue.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/status/status.h"

namespace rockpool {
namespace {

const rocksdb::OptionTypeInfo& Info(const std::string& name) {
  return RockpoolOptionTypeMap().at(name);
}

TEST(OptionGlueTest, MapHasEveryOptionAndNothingElse) {
  EXPECT_EQ(RockpoolOptionTypeMap().size(), RockpoolOptionNames().size());
  for (const std::string& name : RockpoolOptionNames()) {
    EXPECT_EQ(RockpoolOptionTypeMap().count(name), 1u) << name;
    EXPECT_TRUE(IsRockpoolOptionName(name));
    EXPECT_TRUE(IsRockpoolOptionName("rockpool." + name));
  }
  EXPECT_FALSE(IsRockpoolOptionName("max_idle"));
}

TEST(OptionGlueTest, ParsesPlainAndPrefixedNames) {
  rocksdb::ConfigOptions config;
  RockpoolOptions o;
  ASSERT_TRUE(Info("max_idle_per_key").Parse(config, "max_idle_per_key", "3", &o).ok());
  EXPECT_EQ(o.max_idle_per_key, 3u);
  ASSERT_TRUE(Info("idle_seconds").Parse(config, "rockpool.idle_seconds", "9", &o).ok());
  EXPECT_EQ(o.idle_seconds, 9u);
  ASSERT_TRUE(Info("enabled").Parse(config, "rockpool.enabled", "false", &o).ok());
  EXPECT_FALSE(o.enabled);
}

TEST(OptionGlueTest, BadValueIsInvalidArgumentNamingTheOption) {
  rocksdb::ConfigOptions config;
  RockpoolOptions o;
  const RockpoolOptions before = o;
  rocksdb::Status s = Info("max_idle_per_key").Parse(config, "rockpool.max_idle_per_key", "x", &o);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("max_idle_per_key"), std::string::npos) << s.ToString();
  EXPECT_EQ(o, before);  // unchanged on error
  s = Info("measure_stock").Parse(config, "measure_stock", "yes please", &o);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST(OptionGlueTest, SerializesAndComparesThroughOptionsH) {
  rocksdb::ConfigOptions config;
  RockpoolOptions a;
  a.max_idle_per_key = 17;
  std::string value;
  ASSERT_TRUE(
      Info("max_idle_per_key").Serialize(config, "rockpool.max_idle_per_key", &a, &value).ok());
  EXPECT_EQ(value, "17");
  RockpoolOptions b = a;
  std::string mismatch;
  EXPECT_TRUE(Info("max_idle_per_key").AreEqual(config, "max_idle_per_key", &a, &b, &mismatch));
  b.max_idle_per_key = 18;
  EXPECT_FALSE(Info("max_idle_per_key").AreEqual(config, "max_idle_per_key", &a, &b, &mismatch));
  EXPECT_EQ(mismatch, "max_idle_per_key");
  EXPECT_TRUE(Info("enabled").AreEqual(config, "enabled", &a, &b, &mismatch));
}

TEST(OptionGlueTest, StatusCodesKeepTheirMeaning) {
  EXPECT_TRUE(ToRocksStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(ToRocksStatus(absl::InvalidArgumentError("x")).IsInvalidArgument());
  EXPECT_TRUE(ToRocksStatus(absl::OutOfRangeError("x")).IsInvalidArgument());
  EXPECT_TRUE(ToRocksStatus(absl::NotFoundError("x")).IsNotFound());
  EXPECT_TRUE(ToRocksStatus(absl::UnimplementedError("x")).IsNotSupported());
  EXPECT_TRUE(ToRocksStatus(absl::ResourceExhaustedError("x")).IsMemoryLimit());
  EXPECT_TRUE(ToRocksStatus(absl::DataLossError("x")).IsCorruption());
  EXPECT_TRUE(ToRocksStatus(absl::UnavailableError("x")).IsBusy());
  EXPECT_TRUE(ToRocksStatus(absl::DeadlineExceededError("x")).IsTimedOut());
  const rocksdb::Status internal = ToRocksStatus(absl::InternalError("boom"));
  EXPECT_TRUE(internal.IsAborted());
  EXPECT_FALSE(internal.IsCorruption());
  EXPECT_NE(internal.ToString().find("boom"), std::string::npos);
}

}  // namespace
}  // namespace rockpool
