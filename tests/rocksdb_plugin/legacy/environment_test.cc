// Switching the legacy face on from the environment (environment.h) and the
// DB::Open hook (db_open_hook.cc) in a program linking Debian's RocksDB:
// ROCKPOOL_OPTIONS parsing and errors, precedence against listeners, the
// observer listener every DB gets, and the environment's pools surviving
// the last listener.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb_plugin/legacy/environment.h"
#include "rocksdb_plugin/legacy/listener.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

namespace rockpool::legacy {
namespace {

RockpoolOptions Off() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

class EnvironmentTest : public testing::Test {
 protected:
  void TearDown() override {
    unsetenv(kOptionsVariable);
    Configure(Off());
  }
};

TEST(OptionsFromEnvironmentValueTest, NullAndBlankMeanNoConfiguration) {
  for (const char* value : {static_cast<const char*>(nullptr), "", "  \t"}) {
    auto parsed = OptionsFromEnvironmentValue(value);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_FALSE(parsed->has_value());
  }
}

TEST(OptionsFromEnvironmentValueTest, SameSyntaxAsTheListener) {
  auto parsed = OptionsFromEnvironmentValue(" {max_idle_per_key=3; idle_seconds=7} ");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->has_value());
  EXPECT_EQ((*parsed)->max_idle_per_key, 3u);
  EXPECT_EQ((*parsed)->idle_seconds, 7u);
  EXPECT_TRUE((*parsed)->enabled);
}

TEST(OptionsFromEnvironmentValueTest, BadValuesNameTheVariableAndTheOption) {
  auto bad = OptionsFromEnvironmentValue("max_idle_per_key=-1");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  const std::string message(bad.status().message());
  EXPECT_EQ(message.rfind("rockpool: ROCKPOOL_OPTIONS=\"max_idle_per_key=-1\": ", 0), 0u)
      << message;
  EXPECT_NE(message.find("max_idle_per_key"), std::string::npos);
  auto twice = OptionsFromEnvironmentValue("enabled=true;enabled=false");
  EXPECT_TRUE(absl::IsInvalidArgument(twice.status()));
  auto shape = OptionsFromEnvironmentValue("enabled");
  EXPECT_TRUE(absl::IsInvalidArgument(shape.status()));
}

TEST_F(EnvironmentTest, ConfiguresTheProcessWithoutErrorsAndHasItsActivationLine) {
  setenv(kOptionsVariable, "max_idle_per_key=5;idle_seconds=30", 1);
  const EnvironmentMessages messages = ConfigureFromEnvironment();
  EXPECT_EQ(messages.errors, "");  // nothing printed unless ROCKPOOL_VERBOSE=1
  // The line SayVerbose prints (it adds "rockpool[<pid>]: " and the newline).
  EXPECT_EQ(messages.activation.rfind("active from ROCKPOOL_OPTIONS: enabled=true;"
                                      "max_idle_per_key=5;idle_seconds=30;measure_stock=false "
                                      "mode=pool; ",
                                      0),
            0u)
      << messages.activation;
  EXPECT_EQ(messages.activation.find('\n'), std::string::npos) << messages.activation;
  EXPECT_EQ(CurrentSource(), ConfigSource::kEnvironment);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kPool);
  EXPECT_EQ(CurrentOptions().max_idle_per_key, 5u);
}

TEST_F(EnvironmentTest, BadValueChangesNothing) {
  Configure(Off());
  setenv(kOptionsVariable, "enabled=maybe", 1);
  const EnvironmentMessages messages = ConfigureFromEnvironment();
  const std::string& line = messages.errors;
  EXPECT_EQ(line.rfind("rockpool: ROCKPOOL_OPTIONS=\"enabled=maybe\": ", 0), 0u) << line;
  EXPECT_NE(line.find("; pooling stays off\n"), std::string::npos) << line;
  EXPECT_EQ(messages.activation, "");
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
  EXPECT_EQ(CurrentSource(), ConfigSource::kApi);
}

TEST_F(EnvironmentTest, ListenerCreatedLaterWinsIncludingDisabled) {
  setenv(kOptionsVariable, "max_idle_per_key=5", 1);
  ConfigureFromEnvironment();
  std::shared_ptr<rocksdb::EventListener> listener;
  ASSERT_TRUE(NewRockpoolListener("enabled=false", &listener).ok());
  EXPECT_EQ(CurrentSource(), ConfigSource::kListener);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
}

// Opens a DB with no listener at all, writes and flushes, closes it.
void FillAndFlush(const std::string& db_dir, int keys) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = rocksdb::kZlibCompression;
  ASSERT_TRUE(options.listeners.empty());
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, db_dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int i = 0; i < keys; ++i) {
    ASSERT_TRUE(db->Put({}, plugin_test::Key(i), plugin_test::Value(i, 0)).ok());
  }
  ASSERT_TRUE(db->Flush({}).ok());
  ASSERT_TRUE(db->Close().ok());
}

TEST_F(EnvironmentTest, EveryDbGetsTheLogLinesAndThePoolOutlivesIt) {
  setenv(kOptionsVariable, "max_idle_per_key=8;idle_seconds=600", 1);
  ConfigureFromEnvironment();
  const std::string db = plugin_test::NewTempDir("env_db") + "/db";
  FillAndFlush(db, 3000);
  const auto active = plugin_test::LogLines(db, "rockpool active:");
  ASSERT_EQ(active.size(), 1u);
  EXPECT_NE(active[0].find("max_idle_per_key=8;idle_seconds=600"), std::string::npos) << active[0];
  EXPECT_NE(active[0].find("zlib interposed"), std::string::npos) << active[0];
  const auto flushes = plugin_test::LogLines(db, "rockpool report: event=flush");
  ASSERT_EQ(flushes.size(), 1u);
  EXPECT_GT(plugin_test::Field(flushes[0], "| total:", "reused"), 10u) << flushes[0];
  EXPECT_EQ(RockpoolListener::LiveCountForTesting(), 0);  // the DB and its listener are gone
  // ... but not the environment's idle contexts: a reopen reuses them.
  EXPECT_GT(Stats().Total().idle, 0u);
  const uint64_t created = Stats().Total().created;
  FillAndFlush(db, 3000);
  EXPECT_EQ(Stats().Total().created, created);
}

TEST_F(EnvironmentTest, TheLogSaysSoAtOpenBeforeAnyFlush) {
  setenv(kOptionsVariable, "max_idle_per_key=6", 1);
  ConfigureFromEnvironment();
  const std::string db_dir = plugin_test::NewTempDir("env_open") + "/db";
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, db_dir, &raw).ok());
  ASSERT_TRUE(raw->Close().ok());
  delete raw;
  const auto at_open = plugin_test::LogLines(db_dir, "rockpool active at open:");
  ASSERT_EQ(at_open.size(), 1u);
  EXPECT_NE(at_open[0].find("max_idle_per_key=6"), std::string::npos) << at_open[0];
  EXPECT_NE(at_open[0].find("mode=pool"), std::string::npos) << at_open[0];
  // No flush or compaction: the listener's own line never came.
  EXPECT_TRUE(plugin_test::LogLines(db_dir, "rockpool active:").empty());
}

TEST_F(EnvironmentTest, ListenerConfiguredProcessesStillTrimAtTheLastListener) {
  const std::string db = plugin_test::NewTempDir("env_trim") + "/db";
  {
    std::shared_ptr<rocksdb::EventListener> listener;
    ASSERT_TRUE(NewRockpoolListener("max_idle_per_key=8", &listener).ok());
    FillAndFlush(db, 2000);
    EXPECT_GT(Stats().Total().idle, 0u);
  }
  EXPECT_EQ(Stats().Total().idle, 0u);
}

TEST_F(EnvironmentTest, NoObserverWhilePoolingIsOff) {
  Configure(Off());
  const std::string db = plugin_test::NewTempDir("env_off") + "/db";
  FillAndFlush(db, 100);
  EXPECT_TRUE(plugin_test::LogLines(db, "rockpool active").empty());
}

}  // namespace
}  // namespace rockpool::legacy
