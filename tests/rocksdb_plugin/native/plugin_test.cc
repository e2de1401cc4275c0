// rockpool as RocksDB's plugin (rocksdb_plugin/native/rockpool/) without a
// RocksDB rebuild: the sources compiled as a make release build compiles
// them (//rocksdb_plugin/native:plugin_nortti: no RTTI, RocksDB's
// warnings), nothing registered at load time, and the entry point
// RegisterRockpoolPlugin called the way RocksDB's ObjectRegistry calls a
// plugin's _FUNC (a library of its own, named after the plugin). Then
// compression_manager=rockpool from an options string runs real DBs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "rocksdb/advanced_compression.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"
#include "tests/compression/test_data.h"

extern "C" int RegisterRockpoolPlugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                      const std::string& arg);

namespace {

namespace fs = std::filesystem;

rocksdb::ConfigOptions WithPlugin() {
  rocksdb::ConfigOptions config;
  config.registry = rocksdb::ObjectRegistry::NewInstance();
  config.registry->AddLibrary("rockpool", RegisterRockpoolPlugin, "rockpool");
  return config;
}

TEST(PluginTest, NothingIsRegisteredUntilRocksDbCallsThePluginFunction) {
  std::shared_ptr<rocksdb::CompressionManager> m;
  rocksdb::Status s =
      rocksdb::CompressionManager::CreateFromString(rocksdb::ConfigOptions(), "rockpool", &m);
  EXPECT_TRUE(!s.ok() || m == nullptr) << "registered at load time: " << s.ToString();

  rocksdb::ObjectLibrary library("rockpool");
  EXPECT_EQ(RegisterRockpoolPlugin(library, "rockpool"), 1);
  ASSERT_TRUE(rocksdb::CompressionManager::CreateFromString(WithPlugin(), "rockpool", &m).ok());
  ASSERT_NE(m, nullptr);
  EXPECT_STREQ(m->Name(), "rockpool");
  EXPECT_STREQ(m->CompatibilityName(), "BuiltinV2");
}

TEST(PluginTest, OptionsStringSelectsRockpoolAndDbsRoundTrip) {
  for (const std::string codec : {"kZSTD", "kZlibCompression"}) {
    SCOPED_TRACE(codec);
    rocksdb::ConfigOptions config = WithPlugin();
    rocksdb::ColumnFamilyOptions cf;
    ASSERT_TRUE(rocksdb::GetColumnFamilyOptionsFromString(
                    config, rocksdb::ColumnFamilyOptions(),
                    "compression=" + codec + ";bottommost_compression=" + codec +
                        ";compression_manager={id=rockpool;max_idle_per_key=2};"
                        "write_buffer_size=262144;target_file_size_base=524288",
                    &cf)
                    .ok());
    ASSERT_NE(cf.compression_manager, nullptr);
    EXPECT_STREQ(cf.compression_manager->Name(), "rockpool");
    // And a bad option is refused naming it, as with load-time registration.
    rocksdb::ColumnFamilyOptions bad;
    rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
        config, rocksdb::ColumnFamilyOptions(), "compression_manager={id=rockpool;max_idle=3}",
        &bad);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("max_idle"), std::string::npos) << s.ToString();

    const std::string dir = ::rockpool::testing::FreshTestPath("plugin_" + codec);
    rocksdb::Options options(rocksdb::DBOptions(), cf);
    options.create_if_missing = true;
    {
      std::unique_ptr<rocksdb::DB> db;
      ASSERT_TRUE(rocksdb::DB::Open(options, dir, &db).ok());
      for (int i = 0; i < 6000; ++i) {
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k" + std::to_string(i),
                            rockpool::testing::SemiCompressible(200, i))
                        .ok());
      }
      ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
      rocksdb::CompactRangeOptions cro;
      cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
      ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
      std::string v;
      for (int i = 0; i < 6000; ++i) {
        ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "k" + std::to_string(i), &v).ok());
        ASSERT_EQ(v, rockpool::testing::SemiCompressible(200, i));
      }
      ASSERT_TRUE(db->Close().ok());
    }
    // The LOG shows the plugin at work.
    std::ifstream in(dir + "/LOG");
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(log.find("rockpool active: enabled=true;max_idle_per_key=2;"), std::string::npos);
    EXPECT_NE(log.find("rockpool report: event=compaction cf=default"), std::string::npos);

    // The OPTIONS file RocksDB wrote names rockpool; it loads with the
    // plugin registered.
    rocksdb::DBOptions db_options;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    ASSERT_TRUE(rocksdb::LoadLatestOptions(config, dir, &db_options, &cfs).ok());
    ASSERT_NE(cfs[0].options.compression_manager, nullptr);
    EXPECT_STREQ(cfs[0].options.compression_manager->Name(), "rockpool");
  }
}

}  // namespace
