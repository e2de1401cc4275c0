// RockpoolOptions: parsing, validation, serialisation (no RocksDB).
#include "rocksdb_plugin/options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <unordered_map>

#include "absl/time/time.h"

namespace rockpool {
namespace {

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(RockpoolOptionsTest, Defaults) {
  RockpoolOptions o;
  EXPECT_TRUE(o.enabled);
  EXPECT_EQ(o.max_idle_per_key, 8u);
  EXPECT_EQ(o.idle_seconds, 60u);
  EXPECT_FALSE(o.measure_stock);
  EXPECT_EQ(o.mode(), RockpoolOptions::Mode::kPool);
  EXPECT_EQ(o.ToString(), "enabled=true;max_idle_per_key=8;idle_seconds=60;measure_stock=false");
  const PoolOptions p = o.ToPoolOptions();
  EXPECT_EQ(p.max_retained_per_key, 8u);
  EXPECT_EQ(p.idle_timeout, absl::Seconds(60));
}

TEST(RockpoolOptionsTest, Modes) {
  RockpoolOptions o;
  o.enabled = false;
  EXPECT_EQ(o.mode(), RockpoolOptions::Mode::kForward);
  o.measure_stock = true;  // the kill switch wins
  EXPECT_EQ(o.mode(), RockpoolOptions::Mode::kForward);
  o.enabled = true;
  EXPECT_EQ(o.mode(), RockpoolOptions::Mode::kMeasureStock);
  EXPECT_EQ(o.ToPoolOptions().max_retained_per_key, 0u);  // nothing kept idle
  o.measure_stock = false;
  o.max_idle_per_key = 0;
  EXPECT_EQ(o.mode(), RockpoolOptions::Mode::kForward);
  o.idle_seconds = 0;
  EXPECT_EQ(o.ToPoolOptions().idle_timeout, absl::InfiniteDuration());
}

TEST(RockpoolOptionsTest, ParsesString) {
  absl::StatusOr<RockpoolOptions> o = ParseRockpoolOptionsString(
      " max_idle_per_key = 3 ; idle_seconds=7;enabled=1;measure_stock=false;");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->max_idle_per_key, 3u);
  EXPECT_EQ(o->idle_seconds, 7u);
  EXPECT_TRUE(o->enabled);
  EXPECT_FALSE(o->measure_stock);

  o = ParseRockpoolOptionsString("{enabled=false}");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->enabled);
  EXPECT_EQ(o->max_idle_per_key, 8u);  // untouched: defaults

  o = ParseRockpoolOptionsString("");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(*o, RockpoolOptions{});
}

TEST(RockpoolOptionsTest, RoundTrip) {
  RockpoolOptions o;
  o.enabled = false;
  o.max_idle_per_key = 65536;
  o.idle_seconds = 0;
  o.measure_stock = true;
  absl::StatusOr<RockpoolOptions> back = ParseRockpoolOptionsString(o.ToString());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, o);
  for (const std::string& name : RockpoolOptionNames()) {
    absl::StatusOr<std::string> v = GetRockpoolOption(name, o);
    ASSERT_TRUE(v.ok()) << name;
    RockpoolOptions fresh;
    ASSERT_TRUE(SetRockpoolOption(name, *v, &fresh).ok()) << name;
    EXPECT_EQ(GetRockpoolOption(name, fresh).value(), *v) << name;
  }
}

TEST(RockpoolOptionsTest, MapsOnTopOfBase) {
  RockpoolOptions base;
  base.idle_seconds = 5;
  std::unordered_map<std::string, std::string> m{{"max_idle_per_key", "2"}};
  absl::StatusOr<RockpoolOptions> o = ParseRockpoolOptionsMap(m, base);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->max_idle_per_key, 2u);
  EXPECT_EQ(o->idle_seconds, 5u);
  std::map<std::string, std::string> ordered{{"idle_seconds", "9"}};
  o = ParseRockpoolOptionsMap(ordered);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->idle_seconds, 9u);
}

struct BadCase {
  std::string text;
  std::string names;  // expected in the message
};

class BadOptionsTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadOptionsTest, InvalidArgumentNamingTheOption) {
  absl::StatusOr<RockpoolOptions> o = ParseRockpoolOptionsString(GetParam().text);
  ASSERT_FALSE(o.ok()) << GetParam().text;
  EXPECT_TRUE(absl::IsInvalidArgument(o.status())) << o.status();
  EXPECT_NE(Message(o.status()).find(GetParam().names), std::string::npos) << o.status();
}

INSTANTIATE_TEST_SUITE_P(
    All, BadOptionsTest,
    testing::Values(BadCase{"max_idle=4", "max_idle"}, BadCase{"Enabled=true", "Enabled"},
                    BadCase{"max_idle_per_key=-1", "max_idle_per_key"},
                    BadCase{"max_idle_per_key=", "max_idle_per_key"},
                    BadCase{"max_idle_per_key=8x", "max_idle_per_key"},
                    BadCase{"max_idle_per_key=65537", "max_idle_per_key"},
                    BadCase{"max_idle_per_key=99999999999999999999999", "max_idle_per_key"},
                    BadCase{"idle_seconds=1.5", "idle_seconds"},
                    BadCase{"idle_seconds=315360001", "idle_seconds"},
                    BadCase{"enabled=yes", "enabled"}, BadCase{"enabled=TRUE", "enabled"},
                    BadCase{"measure_stock=2", "measure_stock"}, BadCase{"enabled", "enabled"},
                    BadCase{"enabled=true;enabled=false", "enabled"}));

TEST(RockpoolOptionsTest, ErrorsLeaveOptionsUnchanged) {
  RockpoolOptions o;
  o.max_idle_per_key = 3;
  EXPECT_FALSE(SetRockpoolOption("max_idle_per_key", "x", &o).ok());
  EXPECT_EQ(o.max_idle_per_key, 3u);
  EXPECT_FALSE(SetRockpoolOption("nope", "1", &o).ok());
  EXPECT_FALSE(GetRockpoolOption("nope", o).ok());
}

TEST(RockpoolOptionsTest, IgnoreUnknownSkipsNamesNotValues) {
  absl::StatusOr<RockpoolOptions> o =
      ParseRockpoolOptions({{"from_the_future", "1"}, {"idle_seconds", "4"}}, {}, true);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->idle_seconds, 4u);
  o = ParseRockpoolOptions({{"from_the_future", "1"}, {"idle_seconds", "x"}}, {}, true);
  EXPECT_FALSE(o.ok());
}

}  // namespace
}  // namespace rockpool
