// End-to-end tests of tools/sst_replay: the real binary on SSTs written by
// the real RocksDB (Debian 7.8.3): both modes, zstd and zlib, the byte-for-
// byte check, every bad-input case, --json and --svg.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compression/block_codecs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/options.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tests/tools/sst/synthetic_sst.h"
#include "tests/tools/sst_replay/blob_db_fixture.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/sst_file.h"

extern char** environ;

namespace rockpool {
namespace {

// Sanitizer builds of sst_replay leave malloc to the sanitizer runtime: the
// whole-process counter is off there (and reads 0).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMallocCounter = false;
#else
constexpr bool kMallocCounter = true;
#endif

namespace fs = std::filesystem;
using sst_testing::SstFixture;
using sst_testing::SstFixtureOptions;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "rockpool", "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `program args...`, capturing stdout and stderr.
Outcome Spawn(const std::string& program, const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string base = absl::StrCat(sst_testing::TestTempDir(), "/spawn", counter++);
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  Outcome o;
  if (posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return o;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  waitpid(pid, &status, 0);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = ReadFile(out_path);
  o.err = ReadFile(err_path);
  return o;
}

Outcome Replay(std::vector<std::string> args) {
  args.insert(args.begin(), "--tmpdir=" + sst_testing::TestTempDir());
  return Spawn(Runfile("tools/sst_replay/sst_replay"), args);
}

// key=value lines of inspect_output.py (json or svg).
std::map<std::string, std::string> Inspect(const std::string& kind, const std::string& text) {
  const std::string path = absl::StrCat(sst_testing::TestTempDir(), "/output.", kind);
  std::ofstream(path, std::ios::binary) << text;
  Outcome o = Spawn("python3", {Runfile("tests/tools/sst_replay/inspect_output.py"), kind, path});
  EXPECT_EQ(o.code, 0) << kind << " does not parse: " << o.err << "\n" << text.substr(0, 2000);
  std::map<std::string, std::string> kv;
  for (absl::string_view line : absl::StrSplit(o.out, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(line, absl::MaxSplits('=', 1));
    kv[p.first] = p.second;
  }
  return kv;
}

double Num(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  EXPECT_NE(it, kv.end()) << key;
  double v = 0;
  if (it != kv.end()) {
    EXPECT_TRUE(absl::SimpleAtod(it->second, &v)) << key << "=" << it->second;
  }
  return v;
}

std::string Str(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  EXPECT_NE(it, kv.end()) << key;
  return it == kv.end() ? "" : it->second;
}

// Contents and modification times of a file or of every file under a
// directory: must not change when sst_replay reads them.
struct Snapshot {
  std::map<std::string, std::pair<std::string, int64_t>> files;
  bool operator==(const Snapshot&) const = default;
};

Snapshot Take(const std::string& path) {
  Snapshot s;
  auto add = [&](const fs::path& p) {
    struct stat st;
    ::stat(p.c_str(), &st);
    s.files[p.string()] = {
        ReadFile(p.string()),
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  };
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) add(e.path());
    }
  } else if (fs::exists(path)) {
    add(path);
  }
  return s;
}

void PatchFile(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

sst::BlockHandle FirstDataBlock(const std::string& path) {
  auto file = sst::SstFile::Open(path, sst_testing::TestReadOptions());
  EXPECT_TRUE(file.ok()) << file.status();
  auto handles = (*file)->DataBlockHandles();
  EXPECT_TRUE(handles.ok() && !handles->empty());
  return handles->front();
}

class SstReplayTest : public ::testing::Test {
 public:
  // The fixture files are written once for every suite derived from this
  // one, and only read afterwards (tests damage private copies).
  static void SetUpTestSuite() {
    if (dir_ != nullptr) return;
    dir_ = new std::string(sst_testing::TestTempDir());
    // zstd, written by SstFileWriter (ingestible as is).
    SstFixtureOptions zstd;
    zstd.compression = rocksdb::kZSTD;
    zstd.num_keys = 3000;
    zstd_ = new SstFixture(*sst_testing::WriteSstFile(zstd, *dir_ + "/zstd.sst"));
    // zlib, written by a DB flush (staged for ingestion in compaction mode).
    SstFixtureOptions zlib;
    zlib.compression = rocksdb::kZlibCompression;
    zlib.num_keys = 3000;
    zlib.seed = 2;
    zlib_db_ = new std::string(*dir_ + "/zlib_db");
    zlib_ = new SstFixture(*sst_testing::WriteSstByFlush(zlib, *zlib_db_));
    // zstd with a trained dictionary, partitioned index.
    SstFixtureOptions dict = zstd;
    dict.max_dict_bytes = 8192;
    dict.zstd_max_train_bytes = 65536;
    dict.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    dict.seed = 3;
    dict_ = new SstFixture(*sst_testing::WriteSstFile(dict, *dir_ + "/zstd_dict.sst"));
    SstFixtureOptions snappy;
    snappy.compression = rocksdb::kSnappyCompression;
    snappy.num_keys = 500;
    snappy_ = new SstFixture(*sst_testing::WriteSstFile(snappy, *dir_ + "/snappy.sst"));
    // Integrated BlobDB, zstd and zlib blobs.
    zstd_blobs_ = new replay_testing::BlobDb(
        *replay_testing::WriteBlobDb(*dir_ + "/zstd_blob_db", rocksdb::kZSTD));
    zlib_blobs_ = new replay_testing::BlobDb(
        *replay_testing::WriteBlobDb(*dir_ + "/zlib_blob_db", rocksdb::kZlibCompression));
  }

  // The offset of the `n`th record of a blob file.
  static uint64_t BlobRecordOffset(const std::string& path, size_t n) {
    const std::string data = ReadFile(path);
    absl::StatusOr<sst::BlobFile> f = sst::ParseBlobFile(data, path);
    EXPECT_TRUE(f.ok() && f->records.size() > n);
    return f.ok() && f->records.size() > n ? f->records[n].offset : 0;
  }

  // A private copy of a fixture file, to damage.
  static std::string Copy(const std::string& from, const std::string& name) {
    const std::string to = absl::StrCat(sst_testing::TestTempDir(), "/", name);
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
  }

  static std::string* dir_;
  static std::string* zlib_db_;
  static SstFixture* zstd_;
  static SstFixture* zlib_;
  static SstFixture* dict_;
  static SstFixture* snappy_;
  static replay_testing::BlobDb* zstd_blobs_;
  static replay_testing::BlobDb* zlib_blobs_;
};

std::string* SstReplayTest::dir_ = nullptr;
std::string* SstReplayTest::zlib_db_ = nullptr;
SstFixture* SstReplayTest::zstd_ = nullptr;
SstFixture* SstReplayTest::zlib_ = nullptr;
SstFixture* SstReplayTest::dict_ = nullptr;
SstFixture* SstReplayTest::snappy_ = nullptr;
replay_testing::BlobDb* SstReplayTest::zstd_blobs_ = nullptr;
replay_testing::BlobDb* SstReplayTest::zlib_blobs_ = nullptr;

TEST_F(SstReplayTest, BlocksModeReplaysZstdAndZlibFilesByteForByte) {
  const Snapshot before = Take(*dir_);
  Outcome o =
      Replay({"--mode=blocks", "--repeat=1", "--json", zstd_->path, zlib_->path, dict_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "exit_code"), "0");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.compared_blocks"),
            zstd_->num_data_blocks + zlib_->num_data_blocks + dict_->num_data_blocks);
  EXPECT_EQ(Str(kv, "input.0.codec"), "zstd");
  EXPECT_EQ(Str(kv, "input.1.codec"), "zlib");
  EXPECT_EQ(Str(kv, "input.2.blocks_mode"), "replayed");
  // Stock: a deflate and an inflate stream per zlib block, a CCtx per file.
  EXPECT_GE(Num(kv, "blocks.stock.pool_deflate_created"), zlib_->num_data_blocks);
  EXPECT_GE(Num(kv, "blocks.stock.pool_inflate_created"), zlib_->num_data_blocks);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), 2);
  EXPECT_LE(Num(kv, "blocks.pooled.contexts_created"), 8);
  EXPECT_GT(Num(kv, "blocks.stock.codec_bytes"), 20 * Num(kv, "blocks.pooled.codec_bytes"));
  EXPECT_GT(Num(kv, "blocks.stock.codec_calls"), Num(kv, "blocks.pooled.codec_calls"));
  // The whole-process counter runs in the child processes.
  if (kMallocCounter) {
    EXPECT_EQ(Num(kv, "blocks.stock.malloc_counter_active"), 1);
    EXPECT_GT(Num(kv, "blocks.stock.process_bytes"), Num(kv, "blocks.stock.codec_bytes"));
    EXPECT_GT(Num(kv, "blocks.pooled.process_calls"), 0);
  }
  EXPECT_GT(Num(kv, "blocks.pooled.peak_rss_bytes"), 0);
  EXPECT_GT(Num(kv, "blocks.pooled.wall_ns"), 0);
  EXPECT_GT(Num(kv, "blocks.pooled.throughput"), 0);
  EXPECT_GT(Num(kv, "blocks.stock.ratio"), 1.5);
  EXPECT_EQ(Num(kv, "blocks.stock.ratio"), Num(kv, "blocks.pooled.ratio"));
  EXPECT_GE(Num(kv, "blocks.pooled.series_points"), 2);
}

TEST_F(SstReplayTest, CompactionModeRunsStockAndPooledRocksDb) {
  const Snapshot before = Take(*dir_);
  Outcome o =
      Replay({"--mode=compaction", "--repeat=1", "--json", zstd_->path, zlib_->path, dict_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_GT(Num(kv, "compaction.compared_blocks"), 0);
  EXPECT_EQ(Str(kv, "input.0.compaction_mode"), "ingested");
  EXPECT_THAT(Str(kv, "input.1.compaction_mode"), HasSubstr("staged"));
  // RocksDB's own calls, through the interposed legacy face.
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), 50);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_deflate_created"), 2);
  EXPECT_GT(Num(kv, "compaction.pooled.pool_deflate_reused"), 50);
  EXPECT_GT(Num(kv, "compaction.stock.codec_bytes"), 20 * Num(kv, "compaction.pooled.codec_bytes"));
  if (kMallocCounter) {
    EXPECT_GT(Num(kv, "compaction.stock.process_bytes"),
              Num(kv, "compaction.pooled.process_bytes"));
  }
  EXPECT_GT(Num(kv, "compaction.pooled.uncompressed_bytes"), 0);
  EXPECT_EQ(Num(kv, "compaction.stock.stored_bytes"), Num(kv, "compaction.pooled.stored_bytes"));
}

// A user's ROCKPOOL_OPTIONS / ROCKPOOL_STATS must not reach the children
// (a stock child switched to pooling, children writing statistics files):
// sst_replay clears ROCKPOOL_* for every child it starts. With "%p" in the
// path every process that read the variable writes a file of its own, so
// only sst_replay's own must be there.
TEST_F(SstReplayTest, EnvironmentSwitchDoesNotReachTheChildren) {
  const std::string stats_dir = absl::StrCat(sst_testing::TestTempDir(), "/env_stats");
  std::filesystem::create_directories(stats_dir);
  ASSERT_EQ(setenv("ROCKPOOL_OPTIONS", "max_idle_per_key=8;idle_seconds=600", 1), 0);
  ASSERT_EQ(setenv("ROCKPOOL_STATS", (stats_dir + "/stats.%p").c_str(), 1), 0);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", "--json", zlib_->path});
  unsetenv("ROCKPOOL_OPTIONS");
  unsetenv("ROCKPOOL_STATS");
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Num(kv, "compaction.stock.pool_deflate_reused"), 0);
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), 50);
  EXPECT_GT(Num(kv, "compaction.pooled.pool_deflate_reused"), 50);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(stats_dir)) {
    files.push_back(e.path().filename().string());
  }
  EXPECT_EQ(files.size(), 1u) << "statistics files: " << absl::StrJoin(files, " ");
}

TEST_F(SstReplayTest, TableAndSvgForBothModes) {
  const std::string svg = sst_testing::TestTempDir() + "/chart.svg";
  Outcome o = Replay({"--repeat=2", "--svg=" + svg, zstd_->path, zlib_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("blocks mode:"));
  EXPECT_THAT(o.out, HasSubstr("compaction mode:"));
  EXPECT_THAT(o.out, HasSubstr("stock"));
  EXPECT_THAT(o.out, HasSubstr("pooled"));
  EXPECT_THAT(o.out, HasSubstr("delta"));
  EXPECT_THAT(o.out, HasSubstr("codec lib bytes allocated"));
  EXPECT_THAT(o.out, HasSubstr("peak RSS"));
  EXPECT_THAT(o.out, HasSubstr("outputs: identical"));
  EXPECT_THAT(o.out, HasSubstr("2 stock + 2 pooled"));
  // No terminal: no progress bar.
  EXPECT_THAT(o.err, Not(HasSubstr("[#")));
  auto kv = Inspect("svg", ReadFile(svg));
  EXPECT_EQ(Str(kv, "root"), "{http://www.w3.org/2000/svg}svg");
  EXPECT_EQ(Num(kv, "polylines"), 8);   // 2 modes x 2 strategies x 2 lines
  EXPECT_GE(Num(kv, "rects"), 2 * 18);  // the bars
}

TEST_F(SstReplayTest, DefaultWorkloadWithoutInputs) {
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--workload_mb=3", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "default_workload"), "true");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_GT(Num(kv, "blocks.stock.pool_deflate_created"), 100);
  EXPECT_GT(Num(kv, "blocks.stock.pool_zstd_compress_created"), 0);
  // The "histories" family's blobs: a zstd CCtx per blob in stock.
  EXPECT_GT(Num(kv, "blocks.stock.blobs"), 100);
  EXPECT_GE(Num(kv, "blocks.stock.blob_files"), 1);
  EXPECT_GT(Num(kv, "blocks.stock.pool_zstd_compress_created"), Num(kv, "blocks.stock.blobs"));
  EXPECT_LE(Num(kv, "blocks.pooled.pool_zstd_compress_created"), 2);
}

TEST_F(SstReplayTest, BlocksModeReplaysBlobFilesByteForByte) {
  const Snapshot before = Take(*dir_);
  const std::string open = replay_testing::CopyWithoutFooter(
      zlib_blobs_->blob_files[1], sst_testing::TestTempDir() + "/000777.blob");
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", zstd_blobs_->dir,
                      zlib_blobs_->blob_files[0], open});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(*dir_), before) << "inputs were modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  const double zlib_blobs = static_cast<double>(zlib_blobs_->blobs);
  const double blobs = static_cast<double>(zstd_blobs_->blobs) + zlib_blobs;
  EXPECT_EQ(Num(kv, "blocks.stock.blobs"), blobs);
  EXPECT_EQ(Num(kv, "blocks.stock.blob_files"), 4);
  EXPECT_GT(Num(kv, "blocks.compared_blocks"), blobs);  // the DB's SST blocks too
  // SSTs first (the zstd DB's), then its blob files, the zlib one, the open one.
  const size_t n = zstd_blobs_->sst_files.size();
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n, ".kind")), "blob");
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n + 3, ".kind")),
            "blob (no footer: still being written)");
  EXPECT_EQ(Str(kv, absl::StrCat("input.", n + 3, ".blocks_mode")), "replayed");
  // Stock: a CCtx per zstd blob (plus one per SST), a deflate stream per
  // zlib blob, an inflate stream per zlib blob read (input and check).
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), zstd_blobs_->blobs + n);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_deflate_created"), zlib_blobs);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_inflate_created"), 2 * zlib_blobs);
  EXPECT_LE(Num(kv, "blocks.pooled.contexts_created"), 4);
  EXPECT_GT(Num(kv, "blocks.stock.codec_bytes"), 20 * Num(kv, "blocks.pooled.codec_bytes"));
}

TEST_F(SstReplayTest, CompactionModeCopiesABlobDbAndRewritesItsBlobs) {
  const Snapshot before = Take(zlib_blobs_->dir);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", "--json", zlib_blobs_->dir});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(zlib_blobs_->dir), before) << "the DB directory was modified";
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_EQ(Str(kv, "input.0.compaction_mode"), "copied with its DB and compacted");
  const double blobs = static_cast<double>(zlib_blobs_->blobs);
  // Garbage collection with age cutoff 1.0 rewrote every blob...
  EXPECT_EQ(Num(kv, "compaction.stock.output_blobs"), blobs);
  EXPECT_EQ(Num(kv, "compaction.pooled.output_blobs"), blobs);
  EXPECT_GE(Num(kv, "compaction.stock.output_blob_files"), 1);
  EXPECT_GT(Num(kv, "compaction.compared_blocks"), blobs);  // blobs and SST data blocks
  // ... each through a deflate stream of its own in stock RocksDB 7.8.3,
  // and an inflate stream per blob read.
  EXPECT_GE(Num(kv, "compaction.stock.pool_deflate_created"), blobs);
  EXPECT_GE(Num(kv, "compaction.stock.pool_inflate_created"), blobs);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_deflate_created"), 2);
  EXPECT_LE(Num(kv, "compaction.pooled.pool_inflate_created"), 2);
  EXPECT_GT(Num(kv, "compaction.stock.codec_bytes"), 20 * Num(kv, "compaction.pooled.codec_bytes"));
}

TEST_F(SstReplayTest, CompactionModeSkipsABlobFileWithoutItsDb) {
  Outcome o = Replay({"--mode=compaction", "--repeat=1", zstd_blobs_->blob_files[0]});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("no file with zstd or zlib data to compact"));
  EXPECT_THAT(o.out, HasSubstr("a blob file is compacted with its DB (pass the DB directory)"));
}

TEST_F(SstReplayTest, CompactionModeOnABlobDbWithABadBlobExitsTwo) {
  const std::string db = sst_testing::TestTempDir() + "/bad_blob_db";
  fs::create_directories(db);
  for (const auto& e : fs::directory_iterator(zstd_blobs_->dir)) {
    fs::copy_file(e.path(), db + "/" + e.path().filename().string());
  }
  const std::string blob = db + "/" + fs::path(zstd_blobs_->blob_files[1]).filename().string();
  const uint64_t offset = BlobRecordOffset(blob, 3);
  PatchFile(blob, offset + 50, "\x01\x02");
  const Snapshot before = Take(db);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", db});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr(absl::StrCat(blob, ": offset ", offset, ": blob record CRC")));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(Take(db), before);
}

// CRCs intact, payload not deflate data: compaction mode must name the blob
// before RocksDB reads it.
TEST_F(SstReplayTest, CompactionModeOnABlobDbWithAnUndecompressableBlobExitsTwo) {
  const std::string db = sst_testing::TestTempDir() + "/undecompressable_blob_db";
  fs::create_directories(db);
  for (const auto& e : fs::directory_iterator(zlib_blobs_->dir)) {
    fs::copy_file(e.path(), db + "/" + e.path().filename().string());
  }
  const std::string blob = db + "/" + fs::path(zlib_blobs_->blob_files[0]).filename().string();
  const uint64_t offset = replay_testing::CorruptBlobPayload(blob, 2);
  ASSERT_GT(offset, 0u);
  Outcome o = Replay({"--mode=compaction", "--repeat=1", db});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err,
              HasSubstr(absl::StrCat(blob, ": offset ", offset, ": blob does not decompress")));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

TEST_F(SstReplayTest, DbDirectoryIsOnlyRead) {
  const Snapshot before = Take(*zlib_db_);
  ASSERT_FALSE(before.files.empty());
  Outcome o = Replay({"--repeat=1", *zlib_db_});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("outputs: identical"));
  EXPECT_EQ(Take(*zlib_db_), before) << "the DB directory was modified";
}

TEST_F(SstReplayTest, ReblockingCodecAndLevelOverrides) {
  Outcome o = Replay({"--mode=blocks", "--repeat=1", "--json", "--block_size=16384", "--codec=zlib",
                      "--level=1", zstd_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.stock.source_blocks"), zstd_->num_data_blocks);
  EXPECT_LT(Num(kv, "blocks.stock.blocks"), zstd_->num_data_blocks / 4);
  EXPECT_EQ(Num(kv, "blocks.stock.pool_deflate_created"), Num(kv, "blocks.stock.blocks"));
  EXPECT_EQ(Num(kv, "blocks.stock.pool_zstd_compress_created"), 0);
}

TEST_F(SstReplayTest, OtherCodecsAreReportedAndSkipped) {
  Outcome o = Replay({"--repeat=1", "--json", snappy_->path, zstd_->path});
  ASSERT_EQ(o.code, 0) << o.err;
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "input.0.codec"), "snappy");
  EXPECT_THAT(Str(kv, "input.0.blocks_mode"), HasSubstr("skipped: snappy"));
  EXPECT_THAT(Str(kv, "input.0.compaction_mode"), HasSubstr("skipped: snappy"));
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");

  Outcome only = Replay({"--repeat=1", snappy_->path});
  EXPECT_EQ(only.code, 0) << only.err;
  EXPECT_THAT(only.err, HasSubstr("no file with zstd or zlib data"));
}

TEST_F(SstReplayTest, PooledOutputThatDiffersExitsOne) {
  Outcome blocks = Replay(
      {"--mode=blocks", "--repeat=1", "--json", "--testonly_corrupt_pooled_output", zlib_->path});
  EXPECT_EQ(blocks.code, 1) << blocks.err;
  EXPECT_THAT(
      blocks.err,
      HasSubstr("blocks mode: pooled output differs from stock: " + zlib_->path + ": offset "));
  auto kv = Inspect("json", blocks.out);
  EXPECT_EQ(Str(kv, "blocks.identical"), "false");
  EXPECT_EQ(Str(kv, "exit_code"), "1");

  Outcome compaction =
      Replay({"--mode=compaction", "--repeat=1", "--testonly_corrupt_pooled_output", zstd_->path});
  EXPECT_EQ(compaction.code, 1) << compaction.err;
  EXPECT_THAT(compaction.err, HasSubstr("compaction mode: pooled output differs from stock"));
  EXPECT_THAT(compaction.out, HasSubstr("outputs: DIFFERENT"));
}

// format_version 7 (RocksDB 11.x), XXH3 with context checksums, a
// partitioned index, zstd blocks and no table properties about compression:
// RocksDB 7.8.3 cannot read it, so compaction mode stages it with
// rockpool's reader.
TEST_F(SstReplayTest, FormatVersion7FilesFromNewerRocksDb) {
  static CompressionPools* pools = new CompressionPools();
  static BlockCodecs* codecs = new BlockCodecs(pools);
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 4000; ++i) {
    std::string key = absl::StrCat("user", 100000 + i);
    const uint64_t footer = (uint64_t{static_cast<uint64_t>(i) + 1} << 8) | 1;  // seq, kTypeValue
    for (int b = 0; b < 8; ++b) key.push_back(static_cast<char>(footer >> (8 * b)));
    kvs.emplace_back(
        key, absl::StrCat("{\"name\":\"user ", i, "\",\"plan\":\"basic\",\"n\":", i % 7, "}"));
  }
  sst_testing::SyntheticSstOptions options;
  options.format_version = 7;
  options.checksum = sst::ChecksumType::kXXH3;
  options.index_type = sst::IndexType::kTwoLevelIndexSearch;
  options.entries_per_block = 40;
  options.compressor = [](std::string_view contents, bool) {
    std::string out;
    EXPECT_TRUE(codecs->zstd().Compress(contents, 3, nullptr, &out).ok());
    return std::pair<uint8_t, std::string>(7, out);
  };
  const std::string path = sst_testing::TestTempDir() + "/fv7.sst";
  std::ofstream(path, std::ios::binary) << sst_testing::BuildSyntheticSst(kvs, options).bytes;
  const Snapshot before = Take(path);
  Outcome o = Replay({"--repeat=1", "--json", path});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Take(path), before);
  auto kv = Inspect("json", o.out);
  EXPECT_EQ(Str(kv, "input.0.codec"), "zstd");
  EXPECT_EQ(Str(kv, "blocks.identical"), "true");
  EXPECT_EQ(Num(kv, "blocks.compared_blocks"), 100);
  EXPECT_EQ(Str(kv, "compaction.identical"), "true");
  EXPECT_THAT(Str(kv, "input.0.compaction_mode"), HasSubstr("staged"));
}

struct BadInput {
  std::string name;
  std::vector<std::string> flags;
  // Makes the input; returns its path. `offset` receives the offset the
  // message must name.
  std::function<std::string(uint64_t* offset)> make;
  std::string message;  // a substring of the one-line message
};

class SstReplayBadInputTest : public SstReplayTest,
                              public ::testing::WithParamInterface<BadInput> {};

TEST_P(SstReplayBadInputTest, ExitsTwoNamingFileAndOffsetAndLeavesInputAlone) {
  uint64_t offset = 0;
  const std::string path = GetParam().make(&offset);
  const Snapshot before = Take(path);
  std::vector<std::string> args = GetParam().flags;
  args.push_back("--repeat=1");
  args.push_back(path);
  Outcome o = Replay(args);
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr(absl::StrCat(path, ": offset ", offset, ": ")));
  EXPECT_THAT(o.err, HasSubstr(GetParam().message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Take(path), before) << "the input was modified";
}

std::string BadCopy(const std::string& name) {
  return absl::StrCat(sst_testing::TestTempDir(), "/", name);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SstReplayBadInputTest,
    ::testing::Values(
        BadInput{
            "missing", {}, [](uint64_t*) { return BadCopy("does_not_exist.sst"); }, "No such file"},
        BadInput{"not_an_sst",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = BadCopy("notes.sst");
                   std::ofstream(p) << std::string(200, 'x');
                   *offset = 192;
                   return p;
                 },
                 "not a block-based SST file"},
        BadInput{"empty_directory",
                 {},
                 [](uint64_t*) {
                   const std::string p = BadCopy("empty_dir");
                   fs::create_directories(p);
                   return p;
                 },
                 "no SST or blob files"},
        BadInput{"truncated",
                 {},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "truncated.sst");
                   fs::resize_file(p, fs::file_size(p) / 2);
                   *offset = fs::file_size(p) - 8;
                   return p;
                 },
                 "not a block-based SST file"},
        BadInput{"wrong_magic",
                 {},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "magic.sst");
                   *offset = fs::file_size(p) - 8;
                   PatchFile(p, *offset, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
                   return p;
                 },
                 "not a block-based SST file (magic 0x0807060504030201"},
        BadInput{"unsupported_format_version",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(SstReplayTest::zstd_->path, "fv9.sst");
                   *offset = fs::file_size(p) - 12;
                   PatchFile(p, *offset, std::string("\x09\x00\x00\x00", 4));
                   return p;
                 },
                 "unsupported: format_version 9"},
        BadInput{"checksum_mismatch",
                 {"--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(SstReplayTest::zlib_->path, "crc.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   PatchFile(p, h.offset + h.size / 2, std::string("\xff\x00\xff", 3));
                   *offset = h.offset;
                   return p;
                 },
                 "block checksum mismatch"},
        BadInput{"checksum_mismatch_compaction_mode",
                 {"--mode=compaction"},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "crc2.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   PatchFile(p, h.offset + 7, "\x5a\xa5");
                   *offset = h.offset;
                   return p;
                 },
                 "block checksum mismatch"},
        BadInput{"corrupt_block_unchecked",
                 {"--verify_checksums=false", "--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zlib_->path, "corrupt.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   // The size prefix now declares 4 GiB - 1.
                   PatchFile(p, h.offset, std::string("\xff\xff\xff\xff\x0f", 5));
                   *offset = h.offset;
                   return p;
                 },
                 "uncompressed bytes, over max_block_size"},
        BadInput{"blob_crc_mismatch",
                 {"--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zlib_blobs_->blob_files[0], "000031.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 1);
                   PatchFile(p, *offset + 60, "\x33");
                   return p;
                 },
                 "blob record CRC mismatch"},
        BadInput{"blob_record_header_crc_mismatch",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zstd_blobs_->blob_files[0], "000032.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 2);
                   PatchFile(p, *offset + 16, "\x07");  // the expiration
                   return p;
                 },
                 "blob record header CRC mismatch"},
        BadInput{"blob_truncated_inside_a_record",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zlib_blobs_->blob_files[1], "000033.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 4);
                   fs::resize_file(p, *offset + 40);
                   return p;
                 },
                 "runs past the end of the file"},
        BadInput{"not_a_blob_file",
                 {},
                 [](uint64_t*) {
                   const std::string p = BadCopy("000034.blob");
                   std::ofstream(p) << std::string(64, 'b');
                   return p;
                 },
                 "not a blob file: bad magic number"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(SstReplayUsageTest, UsageErrorsExitTwoAndHelpExitsZero) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"--mode=fast"},
                                             {"--repeat=0"},
                                             {"--codec=lz4"},
                                             {"--level=high"},
                                             {"--repeat"}}) {
    Outcome o = Replay(args);
    EXPECT_EQ(o.code, 2) << args[0];
    EXPECT_THAT(o.err, HasSubstr("Try --help")) << args[0];
  }
  Outcome help = Replay({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: sst_replay"));
  EXPECT_THAT(help.out, HasSubstr("--repeat"));
  EXPECT_THAT(help.out, HasSubstr("--svg"));
  EXPECT_THAT(help.out, Not(HasSubstr("internal_child")));
}

}  // namespace
}  // namespace rockpool
