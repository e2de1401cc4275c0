// tools/sst_replay's pure parts: the plan (plan.h), the flag checks
// (command_line.h) and the alternating runner's order, reference and
// test-hook rules (child_runs.h, driven by a scripted ModeRuns).
#include "tools/sst_replay/plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/compression_type.h"
#include "tools/sst_replay/child_runs.h"
#include "tools/sst_replay/command_line.h"

namespace rockpool::replay {
namespace {

InputFile File(std::string path, uint8_t type, uint64_t number, uint64_t blocks = 10) {
  InputFile in;
  in.path = std::move(path);
  in.codec.type = type;
  in.codec.level = 5;
  in.codec.max_dict_bytes = 4096;
  in.file_number = number;
  in.data_blocks = blocks;
  in.stored_data_bytes = blocks * 1000;
  in.format_version = 5;
  in.checksum = 1;
  return in;
}

TEST(PlanTest, TargetKeepsTheFilesCodecOrTakesTheOverride) {
  ReplaySettings s;
  InputFile zstd = File("a.sst", compression_type::kZSTD, 1);
  zstd.has_dictionary = true;
  Target t = TargetFor(zstd, s);
  ASSERT_TRUE(t.codec.has_value());
  EXPECT_EQ(t.codec->type, compression_type::kZSTD);
  EXPECT_EQ(t.codec->level, 5);
  EXPECT_TRUE(t.use_dictionary);

  s.codec = compression_type::kZlib;
  s.level = 9;
  t = TargetFor(zstd, s);
  ASSERT_TRUE(t.codec.has_value());
  EXPECT_EQ(t.codec->type, compression_type::kZlib);
  EXPECT_EQ(t.codec->level, 9);
  EXPECT_FALSE(t.use_dictionary);  // another codec's dictionary does not carry over
}

BlobInput Blob(std::string path, uint8_t type, uint64_t records) {
  BlobInput in;
  in.path = std::move(path);
  in.compression = type;
  in.records = records;
  in.stored_value_bytes = records * 500;
  return in;
}

TEST(PlanTest, BlobFilesFollowTheSstsWithRocksDbsDefaultOptions) {
  ReplaySettings s;
  const std::vector<InputFile> ssts = {File("a.sst", compression_type::kZSTD, 1)};
  const std::vector<BlobInput> blobs = {
      Blob("1.blob", compression_type::kZlib, 40), Blob("2.blob", compression_type::kNone, 10),
      Blob("3.blob", compression_type::kBZip2, 10), Blob("4.blob", compression_type::kZSTD, 0),
      Blob("5.blob", compression_type::kZSTD, 7)};
  BlocksPlan plan = PlanBlocks(ssts, blobs, s);
  ASSERT_EQ(plan.input_status.size(), 6u);
  EXPECT_EQ(plan.input_status[0], "replayed");
  EXPECT_EQ(plan.input_status[1], "replayed");
  EXPECT_NE(plan.input_status[2].find("uncompressed blobs"), std::string::npos);
  EXPECT_NE(plan.input_status[3].find("bzip2"), std::string::npos);
  EXPECT_EQ(plan.input_status[4], "skipped: no blobs");
  EXPECT_EQ(plan.input_status[5], "replayed");
  EXPECT_EQ(plan.skipped, 3);
  ASSERT_EQ(plan.job.blobs.size(), 2u);
  // BlobFileBuilder compresses with default CompressionOptions.
  EXPECT_EQ(plan.job.blobs[0].codec.type, compression_type::kZlib);
  EXPECT_EQ(plan.job.blobs[0].codec.level, 32767);
  EXPECT_EQ(plan.job.blobs[0].codec.window_bits, -14);
  EXPECT_EQ(plan.job.total_blocks, 10u + 47u);
  EXPECT_EQ(plan.blob_records, 47u);
  EXPECT_EQ(plan.file_names, (std::vector<std::string>{"a.sst", "1.blob", "5.blob"}));
  EXPECT_EQ(plan.blob_per_codec.at("zstd"), 1);

  s.codec = compression_type::kZSTD;
  s.level = 9;
  plan = PlanBlocks({}, blobs, s);
  ASSERT_EQ(plan.job.blobs.size(), 3u);  // the uncompressed one too
  EXPECT_EQ(plan.job.blobs[1].codec.type, compression_type::kZSTD);
  EXPECT_EQ(plan.job.blobs[1].codec.level, 9);
}

TEST(PlanTest, DbCopyTakesTheFirstBlobDbAndSkipsTheRest) {
  const std::vector<std::string> paths = {"/d/db1/000007.sst", "/d/db1/000008.blob", "/d/other.sst",
                                          "/d/db2/000009.blob"};
  DbCopyPlan plan = PlanDbCopy(paths, {"/d/db1", "/d/db2"});
  EXPECT_EQ(plan.db, "/d/db1");
  ASSERT_EQ(plan.input_status.size(), 4u);
  EXPECT_EQ(plan.input_status[0], "");
  EXPECT_EQ(plan.input_status[1], "");
  EXPECT_NE(plan.input_status[2].find("copies the DB with blob files /d/db1"), std::string::npos);
  EXPECT_NE(plan.input_status[3].find("skipped"), std::string::npos);
  EXPECT_EQ(plan.skipped, 2);
  EXPECT_TRUE(PlanDbCopy(paths, {}).db.empty());
}

TEST(PlanTest, Lz4AndLz4HcAreReplayedWithTheirOptionsSnappyIsOneNote) {
  ReplaySettings s;
  std::vector<InputFile> ssts = {
      File("a.sst", compression_type::kLZ4HC, 1), File("b.sst", compression_type::kSnappy, 2),
      File("c.sst", compression_type::kLZ4, 3), File("d.sst", compression_type::kSnappy, 4)};
  ssts[0].codec.level = 12;
  ssts[0].has_dictionary = true;
  const std::vector<BlobInput> blobs = {Blob("1.blob", compression_type::kLZ4HC, 5),
                                        Blob("2.blob", compression_type::kSnappy, 5)};
  const BlocksPlan plan = PlanBlocks(ssts, blobs, s);
  EXPECT_EQ(plan.input_status,
            (std::vector<std::string>{"replayed", kSnappySkipReason, "replayed", kSnappySkipReason,
                                      "replayed", kSnappySkipReason}));
  ASSERT_EQ(plan.job.files.size(), 2u);
  EXPECT_EQ(plan.job.files[0].codec.type, compression_type::kLZ4HC);
  EXPECT_EQ(plan.job.files[0].codec.level, 12);
  EXPECT_TRUE(plan.job.files[0].use_dictionary);
  EXPECT_EQ(plan.per_codec.at("lz4"), 1);
  EXPECT_EQ(plan.blob_per_codec.at("lz4hc"), 1);
  // Three snappy inputs, one line, no per-file notes.
  EXPECT_EQ(plan.skipped, 3);
  EXPECT_EQ(plan.snappy_files, 3);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes[0], ::testing::StartsWith("3 snappy inputs not replayed: snappy has no "
                                                   "context to pool"));
  const CompactionPlan compaction = PlanCompaction(ssts, s);
  ASSERT_EQ(compaction.groups.size(), 2u);  // lz4 (4) before lz4hc (5)
  EXPECT_EQ(compaction.groups[0].group.name, "lz4");
  EXPECT_EQ(compaction.groups[1].group.name, "lz4hc");
  EXPECT_EQ(compaction.groups[1].group.codec.level, 12);
  ASSERT_EQ(compaction.notes.size(), 1u);
  EXPECT_THAT(compaction.notes[0], ::testing::StartsWith("2 snappy inputs not replayed"));
  // --codec=lz4hc recompresses zstd/zlib/uncompressed files; snappy stays out.
  s.codec = compression_type::kLZ4HC;
  const Target t = TargetFor(File("z.sst", compression_type::kZlib, 1), s);
  ASSERT_TRUE(t.codec.has_value());
  EXPECT_EQ(t.codec->type, compression_type::kLZ4HC);
  EXPECT_FALSE(TargetFor(File("s.sst", compression_type::kSnappy, 1), s).codec.has_value());
}

TEST(PlanTest, SkipReasons) {
  ReplaySettings s;
  EXPECT_NE(TargetFor(File("s.sst", compression_type::kSnappy, 1), s).skip_reason.find("snappy"),
            std::string::npos);
  EXPECT_NE(TargetFor(File("n.sst", compression_type::kNone, 1), s).skip_reason.find("--codec"),
            std::string::npos);
  EXPECT_EQ(TargetFor(File("e.sst", compression_type::kZlib, 1, 0), s).skip_reason,
            "skipped: no data blocks");
  s.codec = compression_type::kZSTD;  // an uncompressed file can be replayed compressed
  EXPECT_TRUE(TargetFor(File("n.sst", compression_type::kNone, 1), s).codec.has_value());
}

TEST(PlanTest, BlocksPlanListsReplayedFilesAndSkips) {
  const std::vector<InputFile> inputs = {File("z.sst", compression_type::kZSTD, 3),
                                         File("s.sst", compression_type::kSnappy, 4),
                                         File("g.sst", compression_type::kZlib, 5, 7)};
  ReplaySettings s;
  s.block_size = 16384;
  const BlocksPlan plan = PlanBlocks(inputs, {}, s);
  ASSERT_EQ(plan.job.files.size(), 2u);
  EXPECT_EQ(plan.job.mode, "blocks");
  EXPECT_EQ(plan.job.block_size, 16384u);
  EXPECT_EQ(plan.job.total_blocks, 17u);
  EXPECT_EQ(plan.job.total_stored_bytes, 17000u);
  EXPECT_EQ(plan.file_names, (std::vector<std::string>{"z.sst", "g.sst"}));
  EXPECT_EQ(plan.skipped, 1);
  ASSERT_EQ(plan.input_status.size(), 3u);
  EXPECT_EQ(plan.input_status[0], "replayed");
  EXPECT_NE(plan.input_status[1].find("skipped"), std::string::npos);
  EXPECT_EQ(plan.per_codec.at("zstd"), 1);
  EXPECT_EQ(plan.per_codec.at("zlib"), 1);
}

TEST(PlanTest, CompactionGroupsOneColumnFamilyPerCodecOldestFirst) {
  std::vector<InputFile> inputs = {
      File("b/9.sst", compression_type::kZSTD, 9), File("a/2.sst", compression_type::kZSTD, 2),
      File("c/5.sst", compression_type::kZlib, 5), File("d/1.sst", compression_type::kSnappy, 1)};
  inputs[1].format_version = 3;  // the oldest zstd file sets the group's table options
  inputs[1].checksum = 4;
  inputs[0].format_version = 7;
  ReplaySettings s;
  const CompactionPlan plan = PlanCompaction(inputs, s);
  ASSERT_EQ(plan.groups.size(), 2u);  // zlib (2) before zstd (7): by type byte
  EXPECT_EQ(plan.groups[0].group.name, "zlib");
  EXPECT_EQ(plan.groups[1].group.name, "zstd");
  EXPECT_EQ(plan.groups[1].inputs, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(plan.groups[1].group.format_version, 3u);
  EXPECT_EQ(plan.groups[1].group.checksum, 4);
  EXPECT_EQ(plan.groups[1].group.block_size, 4096u);
  EXPECT_EQ(plan.groups[1].group.codec.max_dict_bytes, 0u);  // no dictionary in the files
  EXPECT_TRUE(plan.groups[1].group.files.empty());           // staging fills them
  EXPECT_EQ(plan.skipped, 1);
  EXPECT_TRUE(plan.input_status[0].empty());
  EXPECT_NE(plan.input_status[3].find("snappy"), std::string::npos);
  // format_version is clamped to what RocksDB 7.8.3 writes.
  std::vector<InputFile> newer = {File("x.sst", compression_type::kZlib, 1)};
  newer[0].format_version = 7;
  EXPECT_EQ(PlanCompaction(newer, s).groups[0].group.format_version, 5u);
}

TEST(PlanTest, IngestibleOnlyForSstFileWriterFilesUpToFormat5) {
  InputFile in = File("a.sst", compression_type::kZlib, 1);
  EXPECT_FALSE(IngestibleAsIs(in));
  in.ingestible = true;
  EXPECT_TRUE(IngestibleAsIs(in));
  in.format_version = 6;
  EXPECT_FALSE(IngestibleAsIs(in));
}

TEST(PlanTest, EachModeIsDescribedInOneLine) {
  RunResult first;
  first.metrics = {{"uncompressed_bytes", 4 << 20},
                   {"stored_bytes", 1 << 20},
                   {"ratio", 4},
                   {"output_files", 3},
                   {"output_blob_files", 2},
                   {"output_blobs", 1500},
                   {"source_blocks", 1200},
                   {"blobs", 300}};
  BlocksPlan blocks;
  blocks.per_codec = {{"zlib", 4}, {"zstd", 7}};
  blocks.blob_per_codec = {{"zstd", 2}};
  blocks.skipped = 1;
  ReplaySettings replay;
  replay.level = 3;
  EXPECT_EQ(BlocksDescription(blocks, first, replay),
            "11 SST files (4 zlib, 7 zstd), 1.20k data blocks, 2 blob files (2 zstd), 300 blobs, "
            "1 inputs skipped, 4.00 MiB uncompressed -> 1.00 MiB (4.00x), --level=3");
  EXPECT_EQ(CompactionDescription({"zlib: 1 files", "zstd: 3 files"}, 1, 0, first),
            "2 column families (zlib: 1 files, zstd: 3 files; 1 staged for ingestion), full "
            "compaction -> 3 SSTs, 4.00 MiB uncompressed -> 1.00 MiB (4.00x)");
  DbCopyPlan copy;
  copy.db = "/db";
  EXPECT_EQ(DbCopyDescription(copy, 5, 2, first),
            "DB with blob files /db (5 SSTs, 2 blob files), full compaction with blob GC -> 3 "
            "SSTs + 2 blob files (1.50k blobs), 4.00 MiB uncompressed -> 1.00 MiB (4.00x)");
}

TEST(PlanTest, StrategiesAlternateAndStockComesFirst) {
  EXPECT_EQ(StrategyAt(0, 0), Strategy::kStock);
  EXPECT_EQ(StrategyAt(0, 1), Strategy::kPooled);
  EXPECT_EQ(StrategyAt(1, 0), Strategy::kPooled);
  EXPECT_EQ(StrategyAt(1, 1), Strategy::kStock);
  EXPECT_EQ(StrategyAt(2, 0), Strategy::kStock);
}

TEST(CommandLineTest, DefaultsAreValid) {
  absl::StatusOr<Settings> s = SettingsFromFlags(FlagValues{});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->replay.blocks);
  EXPECT_TRUE(s->replay.compaction);
  EXPECT_FALSE(s->replay.codec.has_value());
  EXPECT_EQ(s->replay.repeat, 5);
}

TEST(CommandLineTest, ModeCodecAndLevel) {
  FlagValues f;
  f.mode = "compaction";
  f.codec = "zlib";
  f.level = "-3";
  absl::StatusOr<Settings> s = SettingsFromFlags(f);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->replay.blocks);
  EXPECT_EQ(s->replay.codec, compression_type::kZlib);
  EXPECT_EQ(s->replay.level, -3);
}

TEST(CommandLineTest, CodecTakesLz4AndLz4Hc) {
  FlagValues f;
  f.codec = "lz4";
  EXPECT_EQ(SettingsFromFlags(f)->replay.codec, compression_type::kLZ4);
  f.codec = "lz4hc";
  EXPECT_EQ(SettingsFromFlags(f)->replay.codec, compression_type::kLZ4HC);
}

TEST(CommandLineTest, BadValuesNameTheFlag) {
  auto bad = [](auto mutate, const std::string& flag) {
    FlagValues f;
    mutate(f);
    absl::StatusOr<Settings> s = SettingsFromFlags(f);
    ASSERT_FALSE(s.ok()) << flag;
    EXPECT_TRUE(absl::IsInvalidArgument(s.status()));
    EXPECT_NE(s.status().message().find(flag), absl::string_view::npos) << s.status();
  };
  bad([](FlagValues& f) { f.mode = "both!"; }, "--mode");
  bad([](FlagValues& f) { f.codec = "snappy"; }, "--codec");
  bad([](FlagValues& f) { f.level = "x"; }, "--level");
  bad([](FlagValues& f) { f.level = "40000"; }, "--level");
  bad([](FlagValues& f) { f.replay.block_size = 10; }, "--block_size");
  bad([](FlagValues& f) { f.replay.block_size = uint64_t{65} << 20; }, "--block_size");
  bad([](FlagValues& f) { f.replay.repeat = 0; }, "--repeat");
  bad([](FlagValues& f) { f.replay.max_idle_per_key = 0; }, "--max_idle_per_key");
  bad([](FlagValues& f) { f.workload_mb = 0; }, "--workload_mb");
}

// A ModeRuns that records what the runner asked for.
class ScriptedRuns : public ModeRuns {
 public:
  absl::StatusOr<RunResult> Run(Strategy strategy, int rep) override {
    log.push_back(absl::StrCat("run ", StrategyName(strategy), " ", rep));
    if (fail_at == static_cast<int>(log.size())) return absl::InvalidArgumentError("bad input");
    return RunResult{};
  }
  absl::StatusOr<Comparison> CompareLatest(Strategy strategy) override {
    log.push_back(absl::StrCat("compare ", StrategyName(strategy)));
    Comparison c;
    c.blocks = 3;
    c.identical = !corrupted;
    if (corrupted) c.difference = "x.sst: offset 7: differs";
    corrupted = false;
    return c;
  }
  RunOutput Latest() const override { return {absl::StrCat("latest-", log.size()), {}, nullptr}; }
  void DropLatest() override { log.push_back("drop"); }
  void DropReference() override { log.push_back("drop reference"); }
  void UseAllocator(size_t index, const process::AllocatorChoice& allocator) override {
    log.push_back(absl::StrCat("allocator ", index, " ", allocator.name));
  }

  std::vector<std::string> log;
  int fail_at = -1;
  bool corrupted = false;
  bool hook_fails = false;
};

TEST(AlternatingRunnerTest, OrderReferenceAndCleanUp) {
  ScriptedRuns runs;
  ModeReport m;
  ASSERT_TRUE(RunAlternating(runs, AlternatingOptions{2, false, {}}, &m).ok());
  EXPECT_EQ(runs.log, (std::vector<std::string>{"allocator 0 glibc", "run stock 0", "run pooled 0",
                                                "compare pooled", "drop", "run pooled 1",
                                                "compare pooled", "drop", "run stock 1",
                                                "compare stock", "drop", "drop reference"}));
  EXPECT_EQ(m.stock.size(), 2u);
  EXPECT_EQ(m.pooled.size(), 2u);
  EXPECT_EQ(m.compared_runs, 3);
  EXPECT_EQ(m.compared_blocks, 3u);
  EXPECT_TRUE(m.identical);
}

// RunAlternating's seam (what sst_replay_testing's hooks fill): a hook that
// records what it is handed and marks the output damaged.
ScriptedRuns* hooked_runs = nullptr;
absl::Status RecordingHook(const RunOutput& output) {
  hooked_runs->log.push_back("hook " + output.framed);
  hooked_runs->corrupted = true;
  return hooked_runs->hook_fails ? absl::InvalidArgumentError("hook failed") : absl::OkStatus();
}

class ScopedHook {
 public:
  explicit ScopedHook(ScriptedRuns* runs) {
    hooked_runs = runs;
    pooled_output_hook.store(&RecordingHook);
  }
  ~ScopedHook() {
    pooled_output_hook.store(nullptr);
    hooked_runs = nullptr;
  }
};

TEST(AlternatingRunnerTest, SeamSeesEveryComparedPooledOutputBeforeItsComparison) {
  ScriptedRuns runs;
  ScopedHook hook(&runs);
  ModeReport m;
  ASSERT_TRUE(RunAlternating(runs, AlternatingOptions{2, true, {}}, &m).ok());
  EXPECT_EQ(runs.log, (std::vector<std::string>{"allocator 0 glibc", "run stock 0", "run pooled 0",
                                                "hook latest-3", "compare pooled", "run pooled 1",
                                                "hook latest-6", "compare pooled", "run stock 1",
                                                "compare stock"}));  // kept: no drops
  EXPECT_FALSE(m.identical);
  EXPECT_EQ(m.difference, "x.sst: offset 7: differs");
}

TEST(AlternatingRunnerTest, AnErrorOfTheSeamStopsTheRunsAsInternal) {
  ScriptedRuns runs;
  runs.hook_fails = true;
  ScopedHook hook(&runs);
  ModeReport m;
  const absl::Status s = RunAlternating(runs, AlternatingOptions{2, false, {}}, &m);
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_EQ(runs.log.back(), "hook latest-3");
  EXPECT_EQ(m.compared_runs, 0);
}

TEST(AlternatingRunnerTest, StopsAtTheFirstError) {
  ScriptedRuns runs;
  runs.fail_at = 3;  // the second run (after the allocator line)
  ModeReport m;
  absl::Status s = RunAlternating(runs, AlternatingOptions{3, false, {}}, &m);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_EQ(runs.log.size(), 3u);  // the allocator, then two runs
  EXPECT_EQ(m.stock.size(), 1u);
  EXPECT_TRUE(m.pooled.empty());
}

// --allocator=all: the whole loop once per allocator, one after the other;
// every run after the very first is compared with that first run's output.
TEST(AlternatingRunnerTest, RunsTheLoopOncePerAllocator) {
  ScriptedRuns runs;
  ModeReport m;
  AlternatingOptions options{2, false, {{"glibc", ""}, {"jemalloc", "/lib/je.so"}}};
  ASSERT_TRUE(RunAlternating(runs, options, &m).ok());
  EXPECT_EQ(std::count(runs.log.begin(), runs.log.end(), "drop reference"), 1);
  EXPECT_EQ(runs.log[11], "allocator 1 jemalloc");
  EXPECT_EQ(runs.log[12], "run stock 0");
  EXPECT_EQ(runs.log[13], "compare stock");  // against the first allocator's first run
  EXPECT_EQ(m.compared_runs, 7);
  ASSERT_EQ(m.allocators.size(), 2u);
  EXPECT_EQ(m.allocators[1].name, "jemalloc");
  EXPECT_EQ(m.allocators[1].preload, "/lib/je.so");
  EXPECT_EQ(m.allocators[0].stock.size(), 2u);
  EXPECT_EQ(m.allocators[1].pooled.size(), 2u);
  EXPECT_EQ(m.stock.size(), 2u);  // the first allocator's
  EXPECT_EQ(m.pooled.size(), 2u);
}

}  // namespace
}  // namespace rockpool::replay
