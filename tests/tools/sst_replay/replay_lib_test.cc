// In-process tests of //tools/sst_replay's :job, :inputs, :engines and
// :report pieces: the parent/child job and result files, option parsing,
// input discovery, aggregation and the report (how one figure reads is
// tools/console's, tested in tests/tools/console).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/compression/test_data.h"
#include "tools/json/json_parse.h"
#include "tools/sst_replay/block_replay.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/report.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string TempDir() {
  static int n = 0;
  return ::rockpool::testing::FreshTestDir(absl::StrCat("replay_lib_test", n++));
}

TEST(GoodCompressionRatioTest, KeepsOnlyBlocksThatSaveAnEighth) {
  EXPECT_TRUE(GoodCompressionRatio(100, 800));
  EXPECT_TRUE(GoodCompressionRatio(699, 800));
  EXPECT_FALSE(GoodCompressionRatio(700, 800));
}

TEST(JobTest, RoundTripsThroughText) {
  Job job;
  job.mode = "compaction";
  job.strategy = Strategy::kPooled;
  job.max_idle_per_key = 3;
  job.verify_checksums = false;
  job.block_size = 8192;
  job.total_blocks = 77;
  job.total_stored_bytes = 123456;
  job.output = "/tmp/a dir/with spaces";
  job.files.push_back(BlocksFile{"/x/y z.sst", CodecSettings{7, -5, -14, 0, 16384, 4}, true});
  CompactionGroup g;
  g.name = "zlib";
  g.codec = CodecSettings{2, 6, -15, 1, 0, 3};
  g.format_version = 4;
  g.checksum = 4;
  g.block_size = 16384;
  g.files = {"/a/1.sst", "/b/2 two.sst"};
  job.groups.push_back(g);

  absl::StatusOr<Job> back = ParseJob(SerializeJob(job));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->mode, "compaction");
  EXPECT_EQ(back->strategy, Strategy::kPooled);
  EXPECT_EQ(back->max_idle_per_key, 3u);
  EXPECT_FALSE(back->verify_checksums);
  EXPECT_EQ(back->block_size, 8192u);
  EXPECT_EQ(back->total_blocks, 77u);
  EXPECT_EQ(back->total_stored_bytes, 123456u);
  EXPECT_EQ(back->output, job.output);
  ASSERT_EQ(back->files.size(), 1u);
  EXPECT_EQ(back->files[0].path, "/x/y z.sst");
  EXPECT_EQ(back->files[0].codec.type, 7);
  EXPECT_EQ(back->files[0].codec.level, -5);
  EXPECT_EQ(back->files[0].codec.max_dict_bytes, 16384u);
  EXPECT_EQ(back->files[0].codec.parallel_threads, 4u);
  EXPECT_TRUE(back->files[0].use_dictionary);
  ASSERT_EQ(back->groups.size(), 1u);
  EXPECT_EQ(back->groups[0].name, "zlib");
  EXPECT_EQ(back->groups[0].codec.window_bits, -15);
  EXPECT_EQ(back->groups[0].codec.strategy, 1);
  EXPECT_EQ(back->groups[0].codec.parallel_threads, 3u);
  EXPECT_EQ(back->groups[0].format_version, 4u);
  EXPECT_EQ(back->groups[0].checksum, 4);
  EXPECT_THAT(back->groups[0].files, ElementsAre("/a/1.sst", "/b/2 two.sst"));

  // Blob files (blocks mode) and a DB to copy (compaction mode).
  Job blobs;
  blobs.mode = "blocks";
  blobs.blobs.push_back(BlocksFile{"/db/000012 x.blob", CodecSettings{2, 32767, -14, 0, 0}});
  blobs.source_db = "/var/lib/my db";
  back = ParseJob(SerializeJob(blobs));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->blobs.size(), 1u);
  EXPECT_EQ(back->blobs[0].path, "/db/000012 x.blob");
  EXPECT_EQ(back->blobs[0].codec.type, 2);
  EXPECT_EQ(back->blobs[0].codec.level, 32767);
  EXPECT_EQ(back->blobs[0].codec.parallel_threads, 1u);
  EXPECT_EQ(back->source_db, "/var/lib/my db");
  EXPECT_TRUE(back->files.empty());

  // The allocator the child checks, and the object the parent preloads.
  Job under;
  under.mode = "blocks";
  under.allocator = "jemalloc";
  under.allocator_preload = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  back = ParseJob(SerializeJob(under));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->allocator, "jemalloc");
  EXPECT_EQ(back->allocator_preload, under.allocator_preload);

  // What the writer would not write is refused, naming the member.
  const std::string text = SerializeJob(under);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  EXPECT_TRUE(ParseJob(text).ok());
  EXPECT_EQ(ParseJob(with("\"mode\":\"blocks\",", "")).status().message(),
            "malformed job file: job.mode: missing");
  EXPECT_EQ(ParseJob(with("\"blocks\"", "\"both\"")).status().message(),
            "malformed job file: job.mode: \"both\" is neither blocks nor compaction");
  EXPECT_EQ(ParseJob(with("\"stock\"", "\"other\"")).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(ParseJob(with("\"files\":[]",
                          "\"files\":[{\"path\":\"/x.sst\",\"use_dictionary\":false,"
                          "\"codec\":{\"type\":7,\"level\":3,\"window_bits\":-14,"
                          "\"strategy\":0,\"max_dict_bytes\":0,\"parallel_threads\":0}}]"))
                .status()
                .message(),
            "malformed job file: job.files[0].codec.parallel_threads: 0");
  EXPECT_EQ(ParseJob("mode blocks\n").status().code(), absl::StatusCode::kInternal);
}

TEST(JobTest, ResultRoundTripsThroughJson) {
  RunResult r;
  r.metrics["codec_bytes"] = 123456789012;
  r.metrics["wall_ns"] = -1;
  r.series.push_back(SeriesPoint{0.5, 100, 10});
  r.series.push_back(SeriesPoint{12.25, 1 << 30, 1 << 20});
  r.outputs.emplace_back("zstd", "/tmp/db/000012.sst");
  r.notes.push_back("a note with spaces");
  r.facts["allocator"] = "jemalloc";
  r.facts["allocator_evidence"] = "thread.allocated rose by 65536 bytes; maps /x y.so";
  r.facts["allocator_version"] = "";
  r.error_code = 2;
  r.error = "/x.sst: offset 12: block checksum mismatch";
  absl::StatusOr<RunResult> back = ParseResult(SerializeResult(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->metrics, r.metrics);
  ASSERT_EQ(back->series.size(), 2u);
  EXPECT_EQ(back->series[1].x, 12.25);
  EXPECT_EQ(back->series[1].process_bytes, 1 << 30);
  EXPECT_EQ(back->outputs, r.outputs);
  EXPECT_EQ(back->notes, r.notes);
  EXPECT_EQ(back->facts, r.facts);
  EXPECT_EQ(back->error_code, 2);
  EXPECT_EQ(back->error, r.error);
}

TEST(InputsTest, ParsesRocksDbCompressionOptions) {
  const CodecSettings c = ParseCompressionOptions(
      "window_bits=-15; level=4; strategy=1; max_dict_bytes=16384; zstd_max_train_bytes=0; "
      "enabled=0; max_dict_buffer_bytes=0; use_zstd_dict_trainer=1; ",
      2);
  EXPECT_EQ(c.type, 2);
  EXPECT_EQ(c.window_bits, -15);
  EXPECT_EQ(c.level, 4);
  EXPECT_EQ(c.strategy, 1);
  EXPECT_EQ(c.max_dict_bytes, 16384u);
  const CodecSettings d = ParseCompressionOptions("", 7);
  EXPECT_EQ(d.level, 32767);
  EXPECT_EQ(d.window_bits, -14);
  EXPECT_EQ(CompressionTypeFromName("ZSTD"), 7);
  EXPECT_EQ(CompressionTypeFromName("Zlib"), 2);
  EXPECT_EQ(CompressionTypeFromName("NoCompression"), 0);
  EXPECT_EQ(CompressionTypeFromName("Snappy"), 1);
  EXPECT_EQ(CompressionTypeFromName("Brotli"), 0xff);
}

TEST(InputsTest, ResolvesFilesAndDirectories) {
  const std::string dir = TempDir();
  for (const char* name : {"000012.sst", "000009.sst", "LOG", "CURRENT"}) {
    std::ofstream(dir + "/" + name) << "x";
  }
  fs::create_directories(dir + "/sub.sst");  // a directory, not a file
  absl::StatusOr<std::vector<std::string>> got =
      ResolveInputs({dir, dir + "/000012.sst", dir + "/LOG"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_THAT(*got, ElementsAre(dir + "/000009.sst", dir + "/000012.sst", dir + "/LOG"));

  absl::StatusOr<std::vector<std::string>> missing = ResolveInputs({dir + "/nope.sst"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr(dir + "/nope.sst: offset 0: cannot open"));
  const std::string empty = TempDir();
  absl::StatusOr<std::vector<std::string>> none = ResolveInputs({empty});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("no SST or blob files"));
}

RunResult MakeRun(int64_t wall_ns, int64_t bytes) {
  RunResult r;
  r.metrics["wall_ns"] = wall_ns;
  r.metrics["uncompressed_bytes"] = 10'000'000;
  r.metrics["stored_bytes"] = 2'500'000;
  r.metrics["codec_bytes"] = bytes;
  return r;
}

TEST(ReportTest, MediansAndDerivedMetrics) {
  const std::vector<RunResult> runs = {MakeRun(3'000'000'000, 5), MakeRun(1'000'000'000, 5),
                                       MakeRun(2'000'000'000, 5)};
  const Summary wall = Summarize(runs, "wall_ns");
  EXPECT_EQ(wall.median, 2e9);
  EXPECT_EQ(wall.min, 1e9);
  EXPECT_EQ(wall.max, 3e9);
  EXPECT_DOUBLE_EQ(Summarize(runs, "throughput").median, 5.0);  // 10 MB / 2 s
  EXPECT_DOUBLE_EQ(Summarize(runs, "ratio").median, 4.0);
  EXPECT_EQ(Summarize({MakeRun(1, 1), MakeRun(3, 1)}, "wall_ns").median, 2);
}

TEST(ReportTest, TableShowsStockPooledAndDelta) {
  Report report;
  ModeReport m;
  m.mode = "blocks";
  m.description = "test";
  m.stock = {MakeRun(2'000'000'000, 1'000'000)};
  m.pooled = {MakeRun(1'000'000'000, 1'000)};
  m.compared_runs = 1;
  m.compared_blocks = 42;
  report.modes.push_back(m);
  report.malloc_counter_active = true;
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("stock"));
  EXPECT_THAT(table, HasSubstr("pooled"));
  EXPECT_THAT(table, HasSubstr("delta"));
  EXPECT_THAT(table, HasSubstr("-99.90% (1/1.00k)"));
  EXPECT_THAT(table, HasSubstr("outputs: identical (42 compressed blocks"));
  absl::StatusOr<json::Value> doc = json::Parse(FormatJson(report));
  ASSERT_TRUE(doc.ok()) << doc.status();
  const json::Value& mode = doc->Find("modes")->items().at(0);
  EXPECT_EQ(mode.Find("metrics")->Find("codec_bytes")->Find("unit")->text(), "bytes");
  EXPECT_EQ(mode.Find("compared_blocks")->text(), "42");
  const std::string svg = RenderSvg(report);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

// The saving line: a percentage when it is real, "near zero" below 5% (11.x
// zstd blobs, zstd SSTs), and never "saves -x" when the pools' own
// bookkeeping costs a few bytes more than stock.
TEST(ReportTest, SavingLineSaysNearZeroPlainly) {
  auto mode = [](int64_t stock_bytes, int64_t pooled_bytes, int64_t stock_created) {
    ModeReport m;
    m.stock_is = "RocksDB 11.8.1";
    m.stock = {MakeRun(1, stock_bytes)};
    m.pooled = {MakeRun(1, pooled_bytes)};
    m.stock[0].metrics["process_bytes"] = stock_bytes;
    m.pooled[0].metrics["process_bytes"] = pooled_bytes;
    m.stock[0].metrics["contexts_created"] = stock_created;
    m.pooled[0].metrics["contexts_created"] = 2;
    return m;
  };
  EXPECT_EQ(SavingLine(mode(1'000'000, 10'000, 500), false),
            "saving on RocksDB 11.8.1: rockpool removes 99.0% of the codec library's bytes "
            "(967 KiB) and 498 of 500 contexts created");
  const std::string small = SavingLine(mode(1'000'000, 980'000, 3), false);
  EXPECT_THAT(small,
              HasSubstr("saving: near zero on RocksDB 11.8.1: rockpool saves 19.5 KiB (2.0% "));
  EXPECT_THAT(small, HasSubstr("already keeps its contexts"));
  const std::string negative = SavingLine(mode(1'000'000, 1'006'780, 3), true);
  EXPECT_THAT(negative, HasSubstr("rockpool saves no bytes (pooled allocates 6.62 KiB more, +0.7% "
                                  "of the process's allocated bytes)"));
  EXPECT_THAT(negative, Not(HasSubstr("saves -")));
  // No context counted in either strategy: the codec's calls never reached
  // rockpool (LZ4 before the legacy face interposes liblz4), not a pattern
  // that already keeps its contexts.
  ModeReport none = mode(1'000'000, 1'000'000, 0);
  none.pooled[0].metrics["contexts_created"] = 0;
  const std::string unreached = SavingLine(none, true);
  EXPECT_THAT(unreached, HasSubstr("no codec context counted in either strategy (see the notes)"));
  EXPECT_THAT(unreached, Not(HasSubstr("already keeps")));
}

std::vector<RunResult> FeltRuns(std::vector<int64_t> wall_ns) {
  std::vector<RunResult> runs;
  for (int64_t w : wall_ns) {
    RunResult r;
    r.metrics["felt_wall_ns"] = w;
    runs.push_back(r);
  }
  return runs;
}

// A verdict only where the U test says so; a significant regression reads
// as one, never as a saving.
TEST(FeltReportTest, VerdictsFollowTheUTest) {
  const FeltMetric& wall = FeltMetrics().front();
  ASSERT_STREQ(wall.key, "felt_wall_ns");
  const std::vector<RunResult> stock = FeltRuns({98, 99, 100, 101, 102});
  const process::RunsComparison faster =
      CompareMetric(stock, FeltRuns({48, 49, 50, 51, 52}), wall.key);
  EXPECT_EQ(faster.shift, process::Shift::kLower);
  EXPECT_EQ(VerdictText(faster, wall, false), "pooled faster: -50.0% wall (p=0.008)");
  const process::RunsComparison slower =
      CompareMetric(stock, FeltRuns({110, 111, 112, 113, 114}), wall.key);
  EXPECT_EQ(slower.shift, process::Shift::kHigher);
  EXPECT_EQ(VerdictText(slower, wall, false), "pooled slower: +12.0% wall (p=0.008)");
  EXPECT_EQ(VerdictText(slower, wall, true), "pooled slower: +12.0% (p=0.008)");
  // Overlapping: pooled's median is lower, but that is noise.
  const process::RunsComparison noise =
      CompareMetric(stock, FeltRuns({99, 101, 102, 104, 100}), wall.key);
  EXPECT_EQ(noise.shift, process::Shift::kNone);
  EXPECT_THAT(VerdictText(noise, wall, false), HasSubstr("no felt difference (p="));
  // Too few runs for any verdict, however large the gap.
  const process::RunsComparison one = CompareMetric(FeltRuns({100}), FeltRuns({10}), wall.key);
  EXPECT_EQ(one.shift, process::Shift::kNone);
  EXPECT_EQ(VerdictText(one, wall, false), "no felt difference (n=1+1: too few runs to test)");
  const process::RunsComparison three =
      CompareMetric(FeltRuns({100, 101, 102}), FeltRuns({10, 11, 12}), wall.key);
  EXPECT_EQ(three.shift, process::Shift::kNone);
  EXPECT_THAT(VerdictText(three, wall, false), HasSubstr("--repeat=4 or more can show one"));
}

TEST(FeltReportTest, OneColumnGroupPerAllocatorFirstInTheTable) {
  ModeReport m;
  m.mode = "blocks";
  m.stock = FeltRuns({100, 100, 100, 100});
  m.pooled = FeltRuns({50, 50, 50, 50});
  m.allocators.push_back({"glibc", "", m.stock, m.pooled});
  m.allocators.push_back(
      {"jemalloc", "/j.so", FeltRuns({100, 100, 100, 100}), FeltRuns({106, 106, 106, 106})});
  m.allocators[1].stock[0].facts = {
      {"allocator", "jemalloc"}, {"allocator_version", "5.3.0"}, {"allocator_object", "/j.so"}};
  Report report;
  report.modes.push_back(m);
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("under each of glibc and jemalloc"));
  const size_t felt = table.find("felt, each child process whole");
  const size_t window = table.find("replay window only");
  ASSERT_NE(felt, std::string::npos);
  EXPECT_LT(felt, window);
  const size_t names = table.find("glibc", felt);
  EXPECT_LT(names, table.find("jemalloc", names));
  EXPECT_THAT(table, HasSubstr("pooled faster: -50.0% (p=0.029)"));
  EXPECT_THAT(table, HasSubstr("pooled slower: +6.0% (p=0.029)"));
  EXPECT_THAT(table, HasSubstr("no felt difference (p=1.000)"));  // CPU: none recorded
  EXPECT_THAT(table, HasSubstr("jemalloc = jemalloc 5.3.0 (/j.so)"));
  absl::StatusOr<json::Value> doc = json::Parse(FormatJson(report));
  ASSERT_TRUE(doc.ok()) << doc.status();
  const json::Value::Array& allocators =
      doc->Find("modes")->items().at(0).Find("allocators")->items();
  ASSERT_EQ(allocators.size(), 2u);
  const json::Value* wall = allocators[1].Find("felt")->Find("felt_wall_ns");
  EXPECT_EQ(wall->Find("verdict")->text(), "worse");
  EXPECT_THAT(wall->Find("text")->text(), HasSubstr("pooled slower: +6.0% wall"));
}

}  // namespace
}  // namespace rockpool::replay
