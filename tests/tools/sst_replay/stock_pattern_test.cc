// The stock call patterns per RocksDB version (tools/sst_replay/
// stock_patterns.h) and how sst_replay chooses one (rocksdb_version.h):
// --rocksdb_version values, OPTIONS files (read by tools/sst/options_file.h,
// tested in tests/tools/sst), bare files refused, format_version 7 as proof. In-process; the
// real-call checks are real_calls_test.cc.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/compression/test_data.h"
#include "tools/sst/options_file.h"
#include "tools/sst_replay/command_line.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/rocksdb_version.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;
using sst::OptionsFileInfo;
using sst::ParseOptionsText;
using ::testing::HasSubstr;

std::string Key(std::string_view version) {
  absl::StatusOr<const StockPattern*> p = PatternForVersion(version);
  return p.ok() ? (*p)->key : std::string(p.status().message());
}

TEST(StockPatternsTest, VersionsMapToThePatternOfTheirSource) {
  EXPECT_EQ(Key("6.29.5"), "6.29");
  EXPECT_EQ(Key("6.29"), "6.29");
  EXPECT_EQ(Key("6.22.1"), "6.29");
  EXPECT_EQ(Key("7.8.3"), "7.8");
  EXPECT_EQ(Key("7.8"), "7.8");
  EXPECT_EQ(Key("8"), "8");
  EXPECT_EQ(Key("8.11.4"), "8");
  EXPECT_EQ(Key("9"), "8");
  EXPECT_EQ(Key("9.11.2"), "8");
  EXPECT_EQ(Key("10.2.1"), "8");
  EXPECT_EQ(Key("10.4.2"), "10.4");
  EXPECT_EQ(Key("10.10.1"), "10.4");
  EXPECT_EQ(Key("10"), "10.4");
  EXPECT_EQ(Key("11"), "11");
  EXPECT_EQ(Key("11.8.1"), "11");
  for (const char* bad : {"12.0.0", "5.18.4", "auto2", "", "11.", "x.y"}) {
    EXPECT_THAT(Key(bad), HasSubstr("--rocksdb_version=")) << bad;
  }
}

// What blocks mode replays differently between the patterns (README.md,
// "Stock call patterns").
TEST(StockPatternsTest, PatternsDifferWhereTheirSourceDoes) {
  const std::vector<StockPattern>& all = AllPatterns();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_FALSE(all[1].separate_index_context);  // 7.8: one CCtx per file
  EXPECT_TRUE(all[1].zstd_context_per_blob);
  EXPECT_TRUE(all[3].separate_index_context);  // 10.4: index + data working areas
  EXPECT_TRUE(all[3].zstd_context_per_blob);
  EXPECT_FALSE(all[4].zstd_context_per_blob);  // 11: one per BlobFileBuilder
}

// LZ4: a new stream per block through 10.5 (util/compression.h), the
// compressors' working areas from 10.7 (util/compression.cc), as the notes
// say.
TEST(StockPatternsTest, Lz4StreamsPerBlockThenWorkingAreas) {
  const std::vector<StockPattern>& all = AllPatterns();
  for (const StockPattern& p : all) {
    const bool old = std::string(p.key) != "10.4" && std::string(p.key) != "11";
    EXPECT_EQ(p.lz4, old ? Lz4Model::kStreamPerBlock : Lz4Model::kWorkingAreas) << p.key;
    EXPECT_THAT(Lz4StockNote(p), HasSubstr(old ? "per LZ4 block" : "per working area")) << p.key;
  }
}

// Per pattern, the zstd data contexts of one SST file (README.md cites the
// source): 6.29-10.3 compression_ctxs[N]; 11.x the data working
// area plus min(N, 31) workers, none with a dictionary; 10.4-10.x not
// replayed (1, a lower bound).
TEST(StockPatternTest, ZstdDataContextsPerSstFileFollowParallelThreads) {
  auto contexts = [](const char* version, uint32_t threads, bool dict) {
    return ZstdDataContextsPerSstFile(**PatternForVersion(version), threads, dict);
  };
  for (const char* v : {"6.29.5", "7.8.3", "9.11.2", "10.2.1"}) {
    EXPECT_EQ(contexts(v, 1, false), 1u) << v;
    EXPECT_EQ(contexts(v, 4, false), 4u) << v;
    EXPECT_EQ(contexts(v, 4, true), 4u) << v;
  }
  EXPECT_EQ(contexts("11.8.1", 1, false), 1u);
  EXPECT_EQ(contexts("11.8.1", 2, false), 3u);
  EXPECT_EQ(contexts("11.8.1", 4, false), 5u);
  EXPECT_EQ(contexts("11.8.1", 40, false), 32u);
  EXPECT_EQ(contexts("11.8.1", 4, true), 1u);
  EXPECT_EQ(contexts("10.7.5", 4, false), 1u);
}

class ChoosePatternTest : public ::testing::Test {
 protected:
  std::string Dir(const std::string& name) {
    const std::string d = rockpool::testing::FreshTestDir(name);
    fs::create_directories(d);
    return d;
  }
  static void Options(const std::string& dir, int number, const std::string& version,
                      const std::string& extra = "") {
    std::ofstream(absl::StrCat(dir, "/OPTIONS-", number))
        << "[Version]\n  rocksdb_version=" << version << "\n[CFOptions \"default\"]\n"
        << extra;
  }
};

TEST_F(ChoosePatternTest, NewestOptionsFileOfTheDbNamesTheVersion) {
  const std::string db = Dir("db");
  Options(db, 5, "6.29.5");
  Options(db, 12, "11.8.1", "  compression_manager=Acme\n");
  std::ofstream(db + "/OPTIONS-000013.dbtmp") << "[Version]\n  rocksdb_version=7.8.3\n";
  absl::StatusOr<PatternChoice> c = ChoosePattern("auto", {{db + "/000010.sst", false, 5}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_STREQ(c->pattern->key, "11");
  EXPECT_EQ(c->version, "11.8.1");
  EXPECT_EQ(c->source, db + "/OPTIONS-12");
  const std::string header = PatternHeader(*c);
  EXPECT_THAT(header, HasSubstr("stock = RocksDB 11.8.1's call pattern"));
  EXPECT_THAT(header, HasSubstr("the RocksDB that last opened the DB"));
  EXPECT_THAT(CompressionManagerNote(*c), HasSubstr("does not know that manager's call pattern"));
}

TEST_F(ChoosePatternTest, BareFilesNeedTheFlag) {
  const std::string dir = Dir("bare");
  absl::StatusOr<PatternChoice> c =
      ChoosePattern("auto", {{dir + "/1.sst", false, 5}, {dir + "/2.blob", true, 0}});
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(c.status()));
  EXPECT_THAT(c.status().message(), HasSubstr("which RocksDB wrote " + dir + "/1.sst"));
  EXPECT_THAT(c.status().message(), HasSubstr("pass --rocksdb_version="));

  absl::StatusOr<PatternChoice> given = ChoosePattern("6.29", {{dir + "/1.sst", false, 5}});
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_STREQ(given->pattern->key, "6.29");
  EXPECT_THAT(PatternHeader(*given), HasSubstr("from --rocksdb_version"));
}

TEST_F(ChoosePatternTest, FormatVersion7ProvesTheNewSstPatternButNotBlobs) {
  const std::string dir = Dir("fv7");
  absl::StatusOr<PatternChoice> c = ChoosePattern("auto", {{dir + "/1.sst", false, 7}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->pattern->separate_index_context);
  EXPECT_THAT(PatternHeader(*c), HasSubstr("format_version 7"));
  EXPECT_FALSE(
      ChoosePattern("auto", {{dir + "/1.sst", false, 7}, {dir + "/2.blob", true, 0}}).ok());
}

// RocksDB >= 10.4 records a set compression_manager in each SST's
// compression_options ("_compression_manager=<id>; ",
// BlockBasedTableBuilder::Rep): that proves 10.4+ whatever the
// format_version, and it is reported like an OPTIONS file's.
TEST_F(ChoosePatternTest, RecordedCompressionManagerProvesTheNewSstPatternAndIsReported) {
  EXPECT_EQ(RecordedCompressionManager("window_bits=-14; level=32767; _type=7; "
                                       "_compression_manager=rockpool; _compressor=RockpoolZstd; "),
            "rockpool");
  EXPECT_EQ(RecordedCompressionManager("window_bits=-14; level=32767; strategy=0; "), "");
  const std::string dir = Dir("manager");
  absl::StatusOr<PatternChoice> c = ChoosePattern("auto", {{dir + "/1.sst", false, 5, "rockpool"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->pattern->separate_index_context);
  EXPECT_THAT(PatternHeader(*c), HasSubstr("recorded compression manager"));
  EXPECT_EQ(c->compression_managers, std::vector<std::string>{"rockpool"});
  EXPECT_THAT(CompressionManagerNote(*c), HasSubstr("already run rockpool's native face"));
  // Without it, the same file proves nothing.
  EXPECT_FALSE(ChoosePattern("auto", {{dir + "/1.sst", false, 5}}).ok());
}

TEST_F(ChoosePatternTest, DisagreeingDbsNeedTheFlagAndTheFlagWinsWithANote) {
  const std::string a = Dir("a");
  const std::string b = Dir("b");
  Options(a, 7, "7.8.3");
  Options(b, 9, "11.8.1");
  const std::vector<VersionInput> files = {{a + "/1.sst", false, 5}, {b + "/2.sst", false, 7}};
  absl::StatusOr<PatternChoice> c = ChoosePattern("auto", files);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("different call patterns"));
  absl::StatusOr<PatternChoice> forced = ChoosePattern("11", files);
  ASSERT_TRUE(forced.ok()) << forced.status();
  ASSERT_EQ(forced->notes.size(), 1u);
  EXPECT_THAT(forced->notes[0], HasSubstr("records rocksdb_version=7.8.3"));
}

TEST(CommandLineVersionTest, FlagIsChecked) {
  FlagValues f;
  EXPECT_TRUE(SettingsFromFlags(f).ok());
  f.rocksdb_version = "11.8.1";
  EXPECT_TRUE(SettingsFromFlags(f).ok());
  f.rocksdb_version = "13";
  absl::StatusOr<Settings> s = SettingsFromFlags(f);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("--rocksdb_version=13"));
}

TEST(RocksDbVersionTest, ParallelCompressionNotesSayWhatStockReplays) {
  const OptionsFileInfo info =
      ParseOptionsText("/db/OPTIONS-7",
                       "[Version]\n  rocksdb_version=7.8.3\n[CFOptions \"default\"]\n  "
                       "compression_opts={parallel_threads=4;}\n[CFOptions \"logs\"]\n  "
                       "compression_opts={parallel_threads=1;}\n  "
                       "bottommost_compression_opts={enabled=true;parallel_threads=3;}\n");
  std::vector<std::string> old = ParallelCompressionNotes(**PatternForVersion("7.8"), {info});
  ASSERT_EQ(old.size(), 2u);
  EXPECT_THAT(old[0], HasSubstr("/db/OPTIONS-7, column family \"default\": "
                                "compression_opts.parallel_threads=4: stock replays 4 zstd data "
                                "contexts per SST file"));
  EXPECT_THAT(old[1], HasSubstr("column family \"logs\": enabled bottommost_compression_opts set "
                                "parallel_threads=3"));
  EXPECT_THAT(old[1], HasSubstr("replayed with parallel_threads=1"));
  std::vector<std::string> v11 = ParallelCompressionNotes(**PatternForVersion("11"), {info});
  EXPECT_THAT(v11[0], HasSubstr("stock replays 5 zstd data contexts per SST file (the data "
                                "working area and one per worker thread"));
  std::vector<std::string> v10 = ParallelCompressionNotes(**PatternForVersion("10.4"), {info});
  EXPECT_THAT(v10[0], HasSubstr("a lower bound"));
  EXPECT_TRUE(ParallelCompressionNotes(**PatternForVersion("7.8"),
                                       {ParseOptionsText("/x/OPTIONS-1", "[Version]\n")})
                  .empty());
}

}  // namespace
}  // namespace rockpool::replay
