// In-process tests of sst_replay's blob file support on BlobDB files the
// real RocksDB 7.8.3 wrote: input discovery (directories, DB directories,
// blob files given directly), scanning (record counts, the optional footer,
// bad input naming file and offset) and blocks mode's blob replay (contexts
// created per blob by stock, reused by pooled, byte-identical output).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/compression/test_data.h"
#include "tests/tools/sst_replay/blob_db_fixture.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/byte_source.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/block_replay.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/plan.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;
using replay_testing::BlobDb;
using ::testing::HasSubstr;

std::string TempDir() {
  static int n = 0;
  return ::rockpool::testing::FreshTestDir(absl::StrCat("blob_replay_test", n++));
}

std::string ReadAll(const std::string& path) {
  absl::StatusOr<std::string> data = sst::ReadWholeFile(path, std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(data.ok()) << data.status();
  return data.ok() ? *data : "";
}

class BlobReplayTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    const std::string dir = TempDir();
    zstd_ = new BlobDb(*replay_testing::WriteBlobDb(dir + "/zstd_db", rocksdb::kZSTD));
    zlib_ = new BlobDb(*replay_testing::WriteBlobDb(dir + "/zlib_db", rocksdb::kZlibCompression));
  }
  static BlobDb* zstd_;
  static BlobDb* zlib_;

  // Runs blocks mode in this process on `blobs` with one strategy.
  static RunResult RunBlobs(const std::vector<std::string>& blobs, Strategy strategy,
                            const std::string& output) {
    std::vector<BlobInput> inputs;
    for (const std::string& b : blobs) inputs.push_back(*ScanBlobFile(b));
    BlocksPlan plan = PlanBlocks({}, inputs, ReplaySettings());
    Job job = plan.job;
    job.strategy = strategy;
    job.output = output;
    RunResult result;
    ProgressSink progress(-1);
    absl::Status s = RunBlocksReplay(job, &result, &progress);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }
};
BlobDb* BlobReplayTest::zstd_ = nullptr;
BlobDb* BlobReplayTest::zlib_ = nullptr;

TEST_F(BlobReplayTest, FixturesHaveBlobFiles) {
  EXPECT_EQ(zstd_->blob_files.size(), 2u);  // one per flush
  EXPECT_GT(zstd_->blobs, 100u);
  EXPECT_EQ(zlib_->blob_files.size(), 2u);
}

TEST_F(BlobReplayTest, DiscoveryFindsBlobFilesInDirectoriesAndDbs) {
  absl::StatusOr<std::vector<std::string>> got = ResolveInputs({zstd_->dir});
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<std::string> blobs;
  for (const std::string& p : *got) {
    if (IsBlobPath(p)) blobs.push_back(p);
  }
  EXPECT_EQ(blobs, zstd_->blob_files);
  EXPECT_EQ(got->size(), zstd_->blob_files.size() + zstd_->sst_files.size());
  // Given directly, and recognised by its magic under another name.
  const std::string renamed = TempDir() + "/renamed.dat";
  fs::copy_file(zlib_->blob_files[0], renamed);
  EXPECT_TRUE(IsBlobPath(renamed));
  EXPECT_FALSE(IsBlobPath(zlib_->sst_files[0]));
  got = ResolveInputs({zlib_->blob_files[1], renamed});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 2u);
  // DB directories with blob files are the ones compaction mode copies.
  const std::string plain = TempDir();
  fs::copy_file(zlib_->blob_files[0], plain + "/000001.blob");
  EXPECT_EQ(BlobDbDirectories({plain, zlib_->dir, zstd_->dir}),
            (std::vector<std::string>{zlib_->dir, zstd_->dir}));
  const std::string empty = TempDir();
  absl::StatusOr<std::vector<std::string>> none = ResolveInputs({empty});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("no SST or blob files"));
}

TEST_F(BlobReplayTest, ScanCountsRecordsAndAcceptsAFileWithoutFooter) {
  uint64_t records = 0;
  for (const std::string& b : zstd_->blob_files) {
    absl::StatusOr<BlobInput> in = ScanBlobFile(b);
    ASSERT_TRUE(in.ok()) << in.status();
    EXPECT_EQ(in->compression, 7);  // kZSTD
    EXPECT_TRUE(in->has_footer);
    EXPECT_GT(in->stored_value_bytes, 0u);
    records += in->records;
  }
  EXPECT_EQ(records, zstd_->blobs);

  const std::string open =
      replay_testing::CopyWithoutFooter(zstd_->blob_files[0], TempDir() + "/000099.blob");
  absl::StatusOr<BlobInput> closed = ScanBlobFile(zstd_->blob_files[0]);
  absl::StatusOr<BlobInput> unfinished = ScanBlobFile(open);
  ASSERT_TRUE(unfinished.ok()) << unfinished.status();
  EXPECT_FALSE(unfinished->has_footer);
  EXPECT_EQ(unfinished->records, closed->records);
  EXPECT_EQ(unfinished->file_number, 99u);
}

TEST_F(BlobReplayTest, BadBlobFilesNameFileAndOffset) {
  const std::string dir = TempDir();
  const std::string source = zlib_->blob_files[0];
  const std::string data = ReadAll(source);
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(data, source);
  ASSERT_TRUE(parsed.ok() && parsed->records.size() > 3);
  const sst::BlobRecord& third = parsed->records[2];

  // A flipped byte in the third blob's value: its CRC fails, at its offset.
  std::string damaged = data;
  damaged[third.offset + 32 + third.key.size() + 5] ^= 0x10;
  const std::string bad_value = dir + "/000007.blob";
  std::ofstream(bad_value, std::ios::binary) << damaged;
  absl::StatusOr<BlobInput> in = ScanBlobFile(bad_value);
  ASSERT_FALSE(in.ok());
  EXPECT_TRUE(absl::IsDataLoss(in.status())) << in.status();
  EXPECT_EQ(std::string(in.status().message()),
            absl::StrCat(bad_value, ": offset ", third.offset, ": blob record CRC mismatch"));
  EXPECT_EQ(ExitCodeFor(in.status()), 2);

  // Cut inside a record (not at a record boundary, so not a missing footer).
  const std::string truncated = dir + "/000008.blob";
  std::ofstream(truncated, std::ios::binary) << data.substr(0, third.offset + 40);
  in = ScanBlobFile(truncated);
  ASSERT_FALSE(in.ok());
  EXPECT_THAT(std::string(in.status().message()),
              HasSubstr(absl::StrCat(truncated, ": offset ", third.offset, ": ")));
  EXPECT_EQ(ExitCodeFor(in.status()), 2);

  // Not a blob file at all.
  const std::string junk = dir + "/000009.blob";
  std::ofstream(junk, std::ios::binary) << std::string(100, 'j');
  in = ScanBlobFile(junk);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(std::string(in.status().message()),
            absl::StrCat(junk, ": offset 0: not a blob file: bad magic number"));
  // Empty (nothing to map).
  const std::string empty = dir + "/000010.blob";
  std::ofstream(empty, std::ios::binary).close();
  in = ScanBlobFile(empty);
  ASSERT_FALSE(in.ok());
  EXPECT_THAT(std::string(in.status().message()),
              HasSubstr(absl::StrCat(empty, ": offset 0: not a blob file: 0 bytes")));
  EXPECT_EQ(ReadAll(source), data) << "input modified";
}

// A blob whose CRCs hold but whose payload is not valid deflate data: bad
// input found by decompressing, named by file and record offset, in the
// parent's check (compaction mode) and in blocks mode's replay alike.
TEST_F(BlobReplayTest, BlobThatDoesNotDecompressIsBadInput) {
  const std::string source = zlib_->blob_files[0];
  const std::string bad = TempDir() + "/000021.blob";
  fs::copy_file(source, bad);
  const uint64_t offset = replay_testing::CorruptBlobPayload(bad, 1);
  ASSERT_GT(offset, 0u);
  ASSERT_TRUE(ScanBlobFile(bad).ok()) << "CRCs must still hold";

  CompressionPools pools;
  BlockCodecs codecs(&pools);
  const absl::Status verified = VerifyBlobValues(bad, codecs);
  EXPECT_TRUE(absl::IsDataLoss(verified)) << verified;
  EXPECT_THAT(std::string(verified.message()),
              HasSubstr(absl::StrCat(bad, ": offset ", offset, ": blob does not decompress")));
  EXPECT_TRUE(VerifyBlobValues(source, codecs).ok());

  BlocksPlan plan = PlanBlocks({}, {*ScanBlobFile(bad)}, ReplaySettings());
  plan.job.output = TempDir() + "/out";
  RunResult result;
  ProgressSink progress(-1);
  const absl::Status replayed = RunBlocksReplay(plan.job, &result, &progress);
  EXPECT_EQ(ExitCodeFor(replayed), 2) << replayed;
  EXPECT_THAT(std::string(replayed.message()),
              HasSubstr(absl::StrCat(bad, ": offset ", offset, ": blob does not decompress")));
}

TEST_F(BlobReplayTest, StockCreatesAZstdContextPerBlobPooledReusesOne) {
  const std::string dir = TempDir();
  const RunResult stock = RunBlobs(zstd_->blob_files, Strategy::kStock, dir + "/stock.out");
  const RunResult pooled = RunBlobs(zstd_->blob_files, Strategy::kPooled, dir + "/pooled.out");
  const int64_t blobs = static_cast<int64_t>(zstd_->blobs);
  EXPECT_EQ(stock.metrics.at("blobs"), blobs);
  EXPECT_EQ(stock.metrics.at("blob_files"), 2);
  // BlobFileBuilder: a CompressionContext (a new ZSTD_CCtx) per blob.
  EXPECT_EQ(stock.metrics.at("pool_zstd_compress_created"), blobs);
  // Reading: RocksDB's per-core DCtx, one for the whole run.
  EXPECT_EQ(stock.metrics.at("pool_zstd_decompress_created"), 1);
  EXPECT_EQ(pooled.metrics.at("pool_zstd_compress_created"), 1);
  EXPECT_EQ(pooled.metrics.at("pool_zstd_compress_reused"), blobs - 1);
  EXPECT_GT(stock.metrics.at("codec_bytes"), 20 * pooled.metrics.at("codec_bytes"));
  EXPECT_EQ(stock.metrics.at("compressed_bytes"), pooled.metrics.at("compressed_bytes"));
  EXPECT_GT(stock.metrics.at("blob_uncompressed_bytes"),
            2 * stock.metrics.at("blob_compressed_bytes"));

  std::vector<std::string> names = zstd_->blob_files;
  absl::StatusOr<Comparison> c =
      CompareFramedOutputs(dir + "/stock.out", dir + "/pooled.out", names, "pooled");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->identical) << c->difference;
  EXPECT_EQ(c->blocks, zstd_->blobs);
}

TEST_F(BlobReplayTest, StockCreatesDeflateAndInflateStreamsPerZlibBlob) {
  const std::string dir = TempDir();
  const RunResult stock = RunBlobs(zlib_->blob_files, Strategy::kStock, dir + "/stock.out");
  const RunResult pooled = RunBlobs(zlib_->blob_files, Strategy::kPooled, dir + "/pooled.out");
  const int64_t blobs = static_cast<int64_t>(zlib_->blobs);
  EXPECT_EQ(stock.metrics.at("blobs"), blobs);
  EXPECT_EQ(stock.metrics.at("pool_deflate_created"), blobs);
  // inflateInit2 per blob read: the input blob and the round-trip check.
  EXPECT_EQ(stock.metrics.at("pool_inflate_created"), 2 * blobs);
  EXPECT_EQ(pooled.metrics.at("pool_deflate_created"), 1);
  EXPECT_EQ(pooled.metrics.at("pool_inflate_created"), 1);
  EXPECT_GT(stock.metrics.at("codec_bytes"), 100 * pooled.metrics.at("codec_bytes"));
  absl::StatusOr<Comparison> c =
      CompareFramedOutputs(dir + "/stock.out", dir + "/pooled.out", zlib_->blob_files, "pooled");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->identical) << c->difference;
  EXPECT_EQ(c->blocks, zlib_->blobs);
}

TEST_F(BlobReplayTest, ReplayedBlobsMatchWhatRocksDbStored) {
  // The files' own codec and RocksDB's default options: blocks mode writes
  // exactly the bytes RocksDB wrote into the blob file.
  const std::string dir = TempDir();
  RunBlobs({zlib_->blob_files[0]}, Strategy::kPooled, dir + "/out");
  const std::string data = ReadAll(zlib_->blob_files[0]);
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(data, zlib_->blob_files[0]);
  ASSERT_TRUE(parsed.ok());
  const std::string out = ReadAll(dir + "/out");
  size_t at = 0;
  for (const sst::BlobRecord& r : parsed->records) {
    ASSERT_LE(at + 16, out.size());
    uint32_t size = 0;
    std::memcpy(&size, out.data() + at + 12, 4);
    EXPECT_EQ(out.substr(at + 16, size), r.value) << "blob at offset " << r.offset;
    at += 16 + size;
  }
  EXPECT_EQ(at, out.size());
}

}  // namespace
}  // namespace rockpool::replay
