// In-process tests of blocks mode on LZ4 and LZ4HC files the real RocksDB
// (Debian 7.8.3) wrote: SSTs with and without a dictionary and BlobDB blob
// files, under the per-block pattern (7.8) and the working-area pattern
// (11). What each strategy creates, that stock and pooled write the same
// bytes, and that the per-block pattern writes exactly the bytes RocksDB
// stored.
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/compression_type.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/compression/test_data.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tests/tools/sst_replay/blob_db_fixture.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/byte_source.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/block_replay.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/plan.h"

namespace rockpool::replay {
namespace {

using replay_testing::BlobDb;
using sst_testing::SstFixture;
using sst_testing::SstFixtureOptions;
using ::testing::HasSubstr;

std::string TempDir() {
  static int n = 0;
  return ::rockpool::testing::FreshTestDir(absl::StrCat("lz4_replay_test", n++));
}

// One framed output record (block_replay.h).
struct Frame {
  uint32_t file = 0;
  uint64_t offset = 0;
  std::string bytes;
};

std::vector<Frame> ReadFrames(const std::string& path) {
  absl::StatusOr<std::string> data = sst::ReadWholeFile(path, std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(data.ok()) << data.status();
  std::vector<Frame> frames;
  size_t at = 0;
  while (data.ok() && at + 16 <= data->size()) {
    Frame f;
    uint32_t size = 0;
    std::memcpy(&f.file, data->data() + at, 4);
    std::memcpy(&f.offset, data->data() + at + 4, 8);
    std::memcpy(&size, data->data() + at + 12, 4);
    f.bytes = data->substr(at + 16, size);
    at += 16 + size;
    frames.push_back(std::move(f));
  }
  EXPECT_TRUE(data.ok() && at == data->size());
  return frames;
}

struct Replayed {
  RunResult stock;
  RunResult pooled;
  std::string stock_out;
  std::string pooled_out;
  std::vector<std::string> names;  // framed file index -> path
};

class Lz4ReplayTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    const std::string dir = TempDir();
    auto write = [&](rocksdb::CompressionType type, uint32_t dict, uint64_t seed,
                     const char* name) {
      SstFixtureOptions o;
      o.compression = type;
      o.max_dict_bytes = dict;
      o.num_keys = 1500;
      o.seed = seed;
      return new SstFixture(*sst_testing::WriteSstFile(o, absl::StrCat(dir, "/", name)));
    };
    lz4_ = write(rocksdb::kLZ4Compression, 0, 11, "lz4.sst");
    lz4_dict_ = write(rocksdb::kLZ4Compression, 4096, 12, "lz4_dict.sst");
    lz4hc_ = write(rocksdb::kLZ4HCCompression, 0, 13, "lz4hc.sst");
    lz4hc_dict_ = write(rocksdb::kLZ4HCCompression, 4096, 14, "lz4hc_dict.sst");
    lz4_blobs_ =
        new BlobDb(*replay_testing::WriteBlobDb(dir + "/lz4_db", rocksdb::kLZ4Compression));
    lz4hc_blobs_ =
        new BlobDb(*replay_testing::WriteBlobDb(dir + "/lz4hc_db", rocksdb::kLZ4HCCompression));
  }

  // Blocks mode in this process, stock then pooled, under `pattern`.
  static Replayed Run(const std::vector<std::string>& ssts, const std::vector<std::string>& blobs,
                      const char* pattern) {
    std::vector<InputFile> inputs;
    for (const std::string& p : ssts)
      inputs.push_back(*ScanFile(p, sst_testing::TestReadOptions()));
    std::vector<BlobInput> blob_inputs;
    for (const std::string& b : blobs) blob_inputs.push_back(*ScanBlobFile(b));
    BlocksPlan plan = PlanBlocks(inputs, blob_inputs, ReplaySettings());
    EXPECT_EQ(plan.skipped, 0);
    Replayed r;
    r.names = plan.file_names;
    const std::string dir = TempDir();
    r.stock_out = dir + "/stock.out";
    r.pooled_out = dir + "/pooled.out";
    for (auto [strategy, result, out] : {std::tuple(Strategy::kStock, &r.stock, r.stock_out),
                                         std::tuple(Strategy::kPooled, &r.pooled, r.pooled_out)}) {
      Job job = plan.job;
      job.pattern = pattern;
      job.strategy = strategy;
      job.output = out;
      ProgressSink progress(-1);
      const absl::Status s = RunBlocksReplay(job, result, &progress);
      EXPECT_TRUE(s.ok()) << s;
    }
    return r;
  }

  static void ExpectIdentical(const Replayed& r, uint64_t blocks) {
    absl::StatusOr<Comparison> c =
        CompareFramedOutputs(r.stock_out, r.pooled_out, r.names, "pooled");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(c->identical) << c->difference;
    EXPECT_EQ(c->blocks, blocks);
  }

  // Blocks whose replayed bytes equal the LZ4 payload RocksDB stored, of the
  // stored LZ4 blocks of `path` (framed file `index`).
  static std::pair<int, int> MatchingStoredBlocks(const Replayed& r, uint32_t index,
                                                  const std::string& path) {
    std::map<uint64_t, std::string> replayed;
    for (Frame& f : ReadFrames(r.stock_out)) {
      if (f.file == index) replayed[f.offset] = std::move(f.bytes);
    }
    absl::StatusOr<std::unique_ptr<sst::SstFile>> file =
        sst::SstFile::Open(path, sst_testing::TestReadOptions());
    EXPECT_TRUE(file.ok()) << file.status();
    if (!file.ok()) return {0, 0};
    absl::StatusOr<std::vector<sst::BlockHandle>> handles = (*file)->DataBlockHandles();
    EXPECT_TRUE(handles.ok()) << handles.status();
    if (!handles.ok()) return {0, 0};
    int stored = 0, equal = 0;
    for (const sst::BlockHandle& h : *handles) {
      absl::StatusOr<sst::RawBlock> raw = (*file)->ReadRawBlock(h, true);
      EXPECT_TRUE(raw.ok()) << raw.status();
      if (!raw.ok() || raw->compression_type == compression_type::kNone) continue;
      ++stored;
      if (replayed[h.offset] == raw->payload()) ++equal;
    }
    return {stored, equal};
  }

  static int64_t M(const RunResult& r, const char* key) { return r.metrics.at(key); }

  static SstFixture* lz4_;
  static SstFixture* lz4_dict_;
  static SstFixture* lz4hc_;
  static SstFixture* lz4hc_dict_;
  static BlobDb* lz4_blobs_;
  static BlobDb* lz4hc_blobs_;
};
SstFixture* Lz4ReplayTest::lz4_ = nullptr;
SstFixture* Lz4ReplayTest::lz4_dict_ = nullptr;
SstFixture* Lz4ReplayTest::lz4hc_ = nullptr;
SstFixture* Lz4ReplayTest::lz4hc_dict_ = nullptr;
BlobDb* Lz4ReplayTest::lz4_blobs_ = nullptr;
BlobDb* Lz4ReplayTest::lz4hc_blobs_ = nullptr;

TEST_F(Lz4ReplayTest, PerBlockPatternCreatesAStreamPerBlockAndWritesRocksDbsBytes) {
  const Replayed r = Run({lz4_->path, lz4_dict_->path, lz4hc_->path, lz4hc_dict_->path}, {}, "7.8");
  const int64_t blocks = M(r.stock, "blocks");
  const int64_t index_blocks = M(r.stock, "index_blocks");
  EXPECT_EQ(blocks, static_cast<int64_t>(lz4_->num_data_blocks + lz4_dict_->num_data_blocks +
                                         lz4hc_->num_data_blocks + lz4hc_dict_->num_data_blocks));
  // LZ4_Compress / LZ4HC_Compress: a new stream for every data and index block.
  EXPECT_EQ(M(r.stock, "pool_lz4_created") + M(r.stock, "pool_lz4hc_created"),
            blocks + index_blocks);
  EXPECT_GE(M(r.stock, "pool_lz4hc_created"),
            static_cast<int64_t>(lz4hc_->num_data_blocks + lz4hc_dict_->num_data_blocks));
  EXPECT_EQ(M(r.stock, "pool_lz4hc_reused"), 0);
  // An LZ4_streamHC_t is 256 KiB: stock's codec bytes are all of them.
  EXPECT_GE(M(r.stock, "pool_lz4hc_bytes"), M(r.stock, "pool_lz4hc_created") * (256 << 10));
  EXPECT_EQ(M(r.pooled, "pool_lz4_created"), 1);
  EXPECT_EQ(M(r.pooled, "pool_lz4hc_created"), 1);
  EXPECT_EQ(M(r.pooled, "contexts_reused"), blocks + index_blocks - 2);
  EXPECT_GT(M(r.stock, "codec_bytes"), 100 * M(r.pooled, "codec_bytes"));
  ExpectIdentical(r, static_cast<uint64_t>(blocks));
  // Stock's bytes are RocksDB 7.8.3's, block for block, dictionary or not.
  for (uint32_t i = 0; i < r.names.size(); ++i) {
    const auto [stored, equal] = MatchingStoredBlocks(r, i, r.names[i]);
    EXPECT_GT(stored, 10) << r.names[i];
    EXPECT_EQ(equal, stored) << r.names[i];
  }
}

TEST_F(Lz4ReplayTest, WorkingAreaPatternKeepsLz4HcStreamsPerFileAndNoneForPlainLz4) {
  const Replayed hc = Run({lz4hc_->path, lz4hc_dict_->path}, {}, "11");
  const int64_t hc_blocks = M(hc.stock, "blocks");
  // A data area per table builder, and an index area where index blocks are
  // compressed: 1-2 streams per file, whatever the block count.
  EXPECT_GE(M(hc.stock, "pool_lz4hc_created"), 2);
  EXPECT_LE(M(hc.stock, "pool_lz4hc_created"), 4);
  EXPECT_EQ(M(hc.stock, "pool_lz4hc_reused"), 0);
  EXPECT_LE(M(hc.pooled, "pool_lz4hc_created"), 2);
  EXPECT_GE(M(hc.pooled, "pool_lz4hc_reused"), 1);
  ExpectIdentical(hc, static_cast<uint64_t>(hc_blocks));
  // LZ4_resetStreamHC_fast on the builder's used stream writes what a new
  // stream writes: 10.7+'s LZ4HC blocks are 7.8.3's bytes.
  for (uint32_t i = 0; i < hc.names.size(); ++i) {
    const auto [stored, equal] = MatchingStoredBlocks(hc, i, hc.names[i]);
    EXPECT_EQ(equal, stored) << hc.names[i];
  }

  const Replayed lz4 = Run({lz4_->path, lz4_dict_->path}, {}, "11");
  // No dictionary: LZ4_compress_fast, no stream. With one: a data area.
  EXPECT_EQ(M(lz4.stock, "pool_lz4_created"), 1);
  EXPECT_EQ(M(lz4.pooled, "pool_lz4_created"), 1);
  EXPECT_EQ(M(lz4.stock, "pool_lz4hc_created"), 0);
  ExpectIdentical(lz4, static_cast<uint64_t>(M(lz4.stock, "blocks")));
  // LZ4_compress_fast hashes blocks under 64 KiB into 16-bit tables: not the
  // bytes of 7.8.3's stream (which the dictionary file still matches).
  const auto [stored, equal] = MatchingStoredBlocks(lz4, 0, lz4_->path);
  EXPECT_GT(stored, 10);
  EXPECT_LT(equal, stored);
  const auto [dict_stored, dict_equal] = MatchingStoredBlocks(lz4, 1, lz4_dict_->path);
  EXPECT_EQ(dict_equal, dict_stored);
}

TEST_F(Lz4ReplayTest, Lz4HcBlobsTakeAStreamPerBlobUpTo10xAndPerFileIn11) {
  const auto& files = lz4hc_blobs_->blob_files;
  const int64_t blobs = static_cast<int64_t>(lz4hc_blobs_->blobs);
  const Replayed old = Run({}, files, "7.8");
  EXPECT_EQ(M(old.stock, "blobs"), blobs);
  EXPECT_EQ(M(old.stock, "pool_lz4hc_created"), blobs);
  EXPECT_EQ(M(old.pooled, "pool_lz4hc_created"), 1);
  ExpectIdentical(old, static_cast<uint64_t>(blobs));
  // The replayed blobs are the bytes RocksDB stored (default options).
  const std::vector<Frame> frames = ReadFrames(old.pooled_out);
  absl::StatusOr<std::string> data =
      sst::ReadWholeFile(files[0], std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE(data.ok());
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(*data, files[0]);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  size_t checked = 0;
  for (size_t i = 0; i < parsed->records.size() && i < frames.size(); ++i, ++checked) {
    EXPECT_EQ(frames[i].bytes, parsed->records[i].value) << "blob " << i;
  }
  EXPECT_EQ(checked, parsed->records.size());

  const Replayed v11 = Run({}, files, "11");
  EXPECT_EQ(M(v11.stock, "pool_lz4hc_created"), static_cast<int64_t>(files.size()));
  ExpectIdentical(v11, static_cast<uint64_t>(blobs));
}

TEST_F(Lz4ReplayTest, Lz4BlobsTakeAStreamPerBlobUpTo10xAndNoneIn11) {
  const auto& files = lz4_blobs_->blob_files;
  const int64_t blobs = static_cast<int64_t>(lz4_blobs_->blobs);
  const Replayed old = Run({}, files, "10.4");  // OLD_CompressData: per blob until 11.x
  EXPECT_EQ(M(old.stock, "pool_lz4_created"), blobs);
  EXPECT_EQ(M(old.pooled, "pool_lz4_created"), 1);
  ExpectIdentical(old, static_cast<uint64_t>(blobs));
  const Replayed v11 = Run({}, files, "11");
  EXPECT_EQ(M(v11.stock, "contexts_created"), 0);
  EXPECT_EQ(M(v11.pooled, "contexts_created"), 0);
  ExpectIdentical(v11, static_cast<uint64_t>(blobs));
}

TEST_F(Lz4ReplayTest, StockNotesNameTheLz4Pattern) {
  std::vector<InputFile> inputs = {*ScanFile(lz4hc_->path, sst_testing::TestReadOptions())};
  const BlocksPlan plan = PlanBlocks(inputs, {}, ReplaySettings());
  EXPECT_EQ(plan.per_codec.at("lz4hc"), 1);
  const std::vector<std::string> old = StockNotes(**PatternForVersion("7.8"), plan);
  ASSERT_EQ(old.size(), 1u);  // no zstd/zlib note for an LZ4HC-only replay
  EXPECT_THAT(old[0], HasSubstr("LZ4_streamHC_t (256 KiB) per LZ4HC one"));
  const std::vector<std::string> v11 = StockNotes(**PatternForVersion("11.8.1"), plan);
  ASSERT_EQ(v11.size(), 1u);
  EXPECT_THAT(v11[0], HasSubstr("LZ4_compress_fast"));
}

}  // namespace
}  // namespace rockpool::replay
