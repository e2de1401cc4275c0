// The `rockpool` EventListener in RocksDB 7.8.3's option machinery: created
// from DBOptions strings and OPTIONS files, serialised back, bad options
// rejected with InvalidArgument naming the option (and nothing applied).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/listener.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_plugin/built_for_line.h"
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

const RockpoolListener* AsRockpool(const std::shared_ptr<rocksdb::EventListener>& l) {
  if (l == nullptr || std::string(l->Name()) != RockpoolListener::kClassName()) return nullptr;
  return static_cast<const RockpoolListener*>(l.get());
}

const RockpoolListener* FindRockpool(const rocksdb::DBOptions& o) {
  for (const auto& l : o.listeners) {
    if (const RockpoolListener* r = AsRockpool(l)) return r;
  }
  return nullptr;
}

rocksdb::Status Parse(const std::string& text, rocksdb::DBOptions* out,
                      bool ignore_unknown = false) {
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = ignore_unknown;
  return rocksdb::GetDBOptionsFromString(config, rocksdb::DBOptions(), text, out);
}

class ListenerOptionsTest : public testing::Test {
 protected:
  void SetUp() override { Configure(Off()); }
  void TearDown() override { Configure(Off()); }
};

TEST_F(ListenerOptionsTest, RegisteredOnceInTheDefaultLibrary) {
  std::vector<std::string> names;
  rocksdb::ObjectLibrary::Default()->GetFactoryNames(rocksdb::EventListener::Type(), &names);
  EXPECT_EQ(std::count(names.begin(), names.end(), "rockpool"), 1);
  std::shared_ptr<rocksdb::EventListener> l;
  ASSERT_TRUE(
      rocksdb::EventListener::CreateFromString(rocksdb::ConfigOptions(), "rockpool", &l).ok());
  ASSERT_NE(AsRockpool(l), nullptr);
  EXPECT_EQ(l->GetId(), "rockpool");
}

TEST_F(ListenerOptionsTest, OptionsStringsCreateAndApply) {
  struct Case {
    std::string text;
    RockpoolOptions want;
  };
  RockpoolOptions custom;
  custom.max_idle_per_key = 4;
  custom.idle_seconds = 7;
  RockpoolOptions killed;
  killed.enabled = false;
  RockpoolOptions measuring;
  measuring.measure_stock = true;
  for (const Case& c : std::vector<Case>{
           {"listeners=rockpool", RockpoolOptions{}},
           {"listeners={id=rockpool}", RockpoolOptions{}},
           {"listeners={id=rockpool;max_idle_per_key=4;idle_seconds=7}", custom},
           {"listeners={id=rockpool;rockpool.max_idle_per_key=4;idle_seconds= 7 }", custom},
           {"listeners={id=rockpool;enabled=false}", killed},
           {"listeners={id=rockpool;measure_stock=true}", measuring},
       }) {
    SCOPED_TRACE(c.text);
    Configure(Off());
    rocksdb::DBOptions o;
    rocksdb::Status s = Parse(c.text, &o);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const RockpoolListener* l = FindRockpool(o);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->options(), c.want);
    // Created from options = applied (before any DB exists).
    EXPECT_EQ(CurrentOptions(), c.want);
    EXPECT_EQ(CurrentMode(), c.want.mode());
  }
}

TEST_F(ListenerOptionsTest, BadOptionsAreInvalidArgumentAndApplyNothing) {
  struct Case {
    std::string text;
    std::string names;
  };
  for (const Case& c : std::vector<Case>{
           {"listeners={id=rockpool;max_idle=4}", "max_idle"},
           {"listeners={id=rockpool;max_idle_per_key=-1}", "max_idle_per_key"},
           {"listeners={id=rockpool;max_idle_per_key=lots}", "max_idle_per_key"},
           {"listeners={id=rockpool;max_idle_per_key=70000}", "max_idle_per_key"},
           {"listeners={id=rockpool;idle_seconds=1m}", "idle_seconds"},
           {"listeners={id=rockpool;enabled=yes}", "enabled"},
           {"listeners={id=rockpool;measure_stock=on;max_idle_per_key=3}", "measure_stock"},
       }) {
    SCOPED_TRACE(c.text);
    RockpoolOptions before;
    before.max_idle_per_key = 2;
    Configure(before);
    rocksdb::DBOptions o;
    rocksdb::Status s = Parse(c.text, &o);
    ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.names), std::string::npos) << s.ToString();
    EXPECT_EQ(CurrentOptions(), before);  // nothing half-applied
    // Options (DB + CF) strings fail the same way: no Options, no DB::Open.
    rocksdb::Options options;
    s = rocksdb::GetOptionsFromString(rocksdb::ConfigOptions(), rocksdb::Options(), c.text,
                                      &options);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  }
}

TEST_F(ListenerOptionsTest, IgnoreUnknownOptionsSkipsNamesNotValues) {
  rocksdb::DBOptions o;
  rocksdb::Status s = Parse("listeners={id=rockpool;from_the_future=1;idle_seconds=5}", &o, true);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(FindRockpool(o), nullptr);
  EXPECT_EQ(FindRockpool(o)->options().idle_seconds, 5u);
  // A bad value is still an error for the listener; RocksDB's
  // ignore_unknown_options then drops the whole `listeners` entry (its own
  // rule for options it cannot parse): no listener, nothing applied.
  const RockpoolOptions before = CurrentOptions();
  rocksdb::DBOptions dropped;
  s = Parse("listeners={id=rockpool;from_the_future=1;idle_seconds=x}", &dropped, true);
  EXPECT_TRUE(s.ok() || s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(FindRockpool(dropped), nullptr);
  EXPECT_EQ(CurrentOptions(), before);
}

TEST_F(ListenerOptionsTest, StringRoundTrip) {
  rocksdb::DBOptions o;
  ASSERT_TRUE(
      Parse("listeners={id=rockpool;max_idle_per_key=4;idle_seconds=0;measure_stock=1}", &o).ok());
  std::string text;
  ASSERT_TRUE(rocksdb::GetStringFromDBOptions(rocksdb::ConfigOptions(), o, &text).ok());
  EXPECT_NE(text.find("id=rockpool"), std::string::npos) << text;
  EXPECT_NE(text.find("max_idle_per_key=4"), std::string::npos) << text;
  rocksdb::DBOptions back;
  rocksdb::Status s = Parse(text, &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(FindRockpool(back), nullptr);
  EXPECT_EQ(FindRockpool(back)->options(), FindRockpool(o)->options());
  std::string value;
  ASSERT_TRUE(FindRockpool(back)->GetOption(rocksdb::ConfigOptions(), "idle_seconds", &value).ok());
  EXPECT_EQ(value, "0");
}

TEST_F(ListenerOptionsTest, OptionsFileRoundTrip) {
  const std::string dir = plugin_test::NewTempDir("options_file_round_trip");
  rocksdb::DBOptions db_options;
  ASSERT_TRUE(
      Parse("create_if_missing=true;listeners={id=rockpool;max_idle_per_key=5;idle_seconds=9}",
            &db_options)
          .ok());
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = rocksdb::kZlibCompression;
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(db_options, cf), dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k", std::string(5000, 'v')).ok());
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  }
  Configure(Off());
  // The OPTIONS file RocksDB wrote recreates the listener.
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions loaded;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadLatestOptions(config, dir, &loaded, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const RockpoolListener* l = FindRockpool(loaded);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->options().max_idle_per_key, 5u);
  EXPECT_EQ(l->options().idle_seconds, 9u);
  EXPECT_EQ(CurrentOptions().max_idle_per_key, 5u);
  // And reopening the DB with it works.
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(rocksdb::Options(loaded, cfs[0].options), dir, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::string v;
  EXPECT_TRUE(raw->Get(rocksdb::ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, std::string(5000, 'v'));
  delete raw;
}

TEST_F(ListenerOptionsTest, BadOptionsFileIsRejected) {
  const std::string dir = plugin_test::NewTempDir("bad_options_file");
  const std::string path = dir + "/OPTIONS-bad";
  {
    std::ofstream f(path);
    f << "[Version]\n  rocksdb_version=" ROCKPOOL_ROCKSDB_VERSION
         "\n  options_file_version=1.1\n\n"
         "[DBOptions]\n  create_if_missing=true\n"
         "  listeners={id=rockpool;max_idle_per_key=8;idle_second=60}\n\n"
         "[CFOptions \"default\"]\n  compression=kZlibCompression\n\n"
         "[TableOptions/BlockBasedTable \"default\"]\n";
  }
  rocksdb::ConfigOptions config;
  config.env = rocksdb::Env::Default();
  rocksdb::DBOptions loaded;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadOptionsFromFile(config, path, &loaded, &cfs);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("idle_second"), std::string::npos) << s.ToString();
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
}

TEST_F(ListenerOptionsTest, BuiltInCxx) {
  std::shared_ptr<rocksdb::EventListener> l;
  ASSERT_TRUE(NewRockpoolListener("max_idle_per_key=2", &l).ok());
  ASSERT_NE(AsRockpool(l), nullptr);
  EXPECT_EQ(CurrentOptions().max_idle_per_key, 2u);
  rocksdb::Status s = NewRockpoolListener("max_idle_per_key=2;colour=blue", &l);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("colour"), std::string::npos);
}

TEST_F(ListenerOptionsTest, LastListenerGoneFreesIdleContexts) {
  ASSERT_EQ(RockpoolListener::LiveCountForTesting(), 0);
  {
    std::shared_ptr<rocksdb::EventListener> l;
    ASSERT_TRUE(NewRockpoolListener("", &l).ok());
    z_stream s;
    std::memset(&s, 0, sizeof(s));
    ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
    ASSERT_EQ(deflateEnd(&s), Z_OK);
    EXPECT_EQ(Stats().deflate.idle, 1u);
    EXPECT_EQ(RockpoolListener::LiveCountForTesting(), 1);
  }
  EXPECT_EQ(RockpoolListener::LiveCountForTesting(), 0);
  EXPECT_EQ(Stats().deflate.idle, 0u);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kPool);  // still on for the next DB
}

}  // namespace
}  // namespace rockpool::legacy
