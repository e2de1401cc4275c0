// RocksDB's OPTIONS files read as text (tools/sst/options_file.h): the
// version and compression managers, each column family's parallel_threads,
// and the newest OPTIONS file of a directory.
#include "tools/sst/options_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/compression/test_data.h"

namespace rockpool::sst {
namespace {

TEST(OptionsFileTest, GivesVersionAndCompressionManager) {
  const OptionsFileInfo info = ParseOptionsText(
      "OPTIONS-000007",
      "# a comment\n[Version]\n  rocksdb_version=11.8.1\n  options_file_version=1.1\n\n"
      "[DBOptions]\n  max_open_files=-1\n[CFOptions \"default\"]\n  "
      "compression_manager=nullptr\n[CFOptions \"hot\"]\n  compression_manager={id=rockpool;"
      "max_idle_per_key=8}\n[CFOptions \"cold\"]\n  compression_manager={id=rockpool;"
      "max_idle_per_key=8}\n");
  EXPECT_EQ(info.rocksdb_version, "11.8.1");
  EXPECT_THAT(info.compression_managers,
              ::testing::ElementsAre("{id=rockpool;max_idle_per_key=8}"));
}

// SST files do not record parallel_threads: the OPTIONS file's column
// families do (compression_opts, and bottommost_compression_opts when
// enabled; other sections and malformed values are ignored).
TEST(OptionsFileTest, GivesEachColumnFamilysParallelThreads) {
  const OptionsFileInfo info = ParseOptionsText(
      "OPTIONS-000009",
      "[Version]\n  rocksdb_version=7.8.3\n[CFOptions \"default\"]\n  "
      "compression_opts={enabled=false;parallel_threads=1;level=32767;}\n  "
      "bottommost_compression_opts={parallel_threads=1;}\n[CFOptions \"hot\"]\n  "
      "compression_opts={max_dict_bytes=0;parallel_threads=4;zstd_max_train_bytes=0;}\n  "
      "bottommost_compression_opts={enabled=false;parallel_threads=8;}\n"
      "[CFOptions \"cold data\"]\n  compression_opts={parallel_threads=1;}\n  "
      "bottommost_compression_opts={enabled=true;parallel_threads=2;}\n"
      "[CFOptions \"odd\"]\n  compression_opts={parallel_threads=x;}\n"
      "[CFOptions \"huge\"]\n  compression_opts={parallel_threads=4000000000;}\n"
      "[TableOptions/BlockBasedTable \"default\"]\n  compression_opts={parallel_threads=9;}\n");
  ASSERT_EQ(info.parallel_compression.size(), 3u);
  EXPECT_EQ(info.parallel_compression[2].column_family, "huge");
  EXPECT_EQ(info.parallel_compression[2].threads, kMaxParallelThreads);
  EXPECT_EQ(info.parallel_compression[0].column_family, "hot");
  EXPECT_EQ(info.parallel_compression[0].threads, 4u);
  EXPECT_EQ(info.parallel_compression[0].bottommost_threads, 0u);  // not enabled
  EXPECT_EQ(info.parallel_compression[1].column_family, "cold data");
  EXPECT_EQ(info.parallel_compression[1].threads, 1u);
  EXPECT_EQ(info.parallel_compression[1].bottommost_threads, 2u);
  EXPECT_EQ(ParallelThreadsOf(info, "hot"), 4u);
  EXPECT_EQ(ParallelThreadsOf(info, "cold data"), 1u);
  EXPECT_EQ(ParallelThreadsOf(info, "default"), 1u);
  EXPECT_EQ(ParallelThreadsOf(info, "missing"), 1u);
}

// The highest-numbered OPTIONS-<n> file, read once per directory; files being
// written (OPTIONS-<n>.dbtmp) and directories without one give nothing.
TEST(OptionsFileTest, BesideReadsTheNewestOptionsFileOfTheDirectory) {
  const std::string db = rockpool::testing::FreshTestDir("options_file_test_db");
  std::ofstream(db + "/OPTIONS-000007") << "[Version]\n  rocksdb_version=7.8.3\n";
  std::ofstream(db + "/OPTIONS-000012") << "[Version]\n  rocksdb_version=11.8.1\n";
  std::ofstream(db + "/OPTIONS-000013.dbtmp") << "[Version]\n  rocksdb_version=9.10.0\n";
  OptionsFiles files;
  const OptionsFileInfo* info = files.Beside(db + "/000009.sst");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->path, db + "/OPTIONS-000012");
  EXPECT_EQ(info->rocksdb_version, "11.8.1");
  std::ofstream(db + "/OPTIONS-000014") << "[Version]\n  rocksdb_version=10.4.2\n";
  EXPECT_EQ(files.Beside(db + "/000010.sst"), info);  // read once
  EXPECT_EQ(OptionsFiles().Beside(db + "/000010.sst")->rocksdb_version, "10.4.2");
  const std::string empty = rockpool::testing::FreshTestDir("options_file_test_empty");
  EXPECT_EQ(files.Beside(empty + "/000009.sst"), nullptr);
  EXPECT_EQ(DirectoryOf("000009.sst"), ".");
  EXPECT_EQ(DirectoryOf("/db/000009.sst"), "/db");
}

}  // namespace
}  // namespace rockpool::sst
