// Bad input: every failure is a one-line status naming the file and offset,
// never a crash, and the input file is never modified.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tests/tools/sst/synthetic_sst.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst {
namespace {

using sst_testing::SstFixture;
using sst_testing::SstFixtureOptions;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class CorruptionTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = sst_testing::TestTempDir();
    SstFixtureOptions o;
    o.compression = rocksdb::kZSTD;
    o.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    o.metadata_block_size = 256;
    o.num_keys = 400;
    absl::StatusOr<SstFixture> f = sst_testing::WriteSstFile(o, dir_ + "/good.sst");
    ASSERT_TRUE(f.ok()) << f.status();
    fixture_ = *f;
    good_ = ReadFile(fixture_.path);
    absl::StatusOr<std::unique_ptr<SstFile>> file =
        SstFile::Open(fixture_.path, sst_testing::TestReadOptions());
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
    ASSERT_TRUE(handles.ok()) << handles.status();
    handles_ = *handles;
    index_ = (*file)->index_handle();
    metaindex_ = (*file)->footer().metaindex_handle;
    properties_ = (*file)->metaindex().at("rocksdb.properties");
  }

  // Writes `bytes` to a new file and opens it.
  absl::StatusOr<std::unique_ptr<SstFile>> OpenBytes(const std::string& bytes,
                                                     const std::string& name) {
    path_ = dir_ + "/" + name;
    WriteFile(path_, bytes);
    return SstFile::Open(path_, sst_testing::TestReadOptions());
  }

  static void ExpectError(const absl::Status& s, absl::StatusCode code,
                          const std::string& expected_substring) {
    EXPECT_EQ(s.code(), code) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), expected_substring))
        << "\"" << s.message() << "\" lacks \"" << expected_substring << "\"";
    EXPECT_FALSE(absl::StrContains(s.message(), "\n")) << s;
  }

  std::string dir_, path_, good_;
  SstFixture fixture_;
  std::vector<BlockHandle> handles_;
  BlockHandle index_, metaindex_, properties_;
};

TEST_F(CorruptionTest, MissingPath) {
  const std::string missing = dir_ + "/does-not-exist.sst";
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::Open(missing);
  ASSERT_FALSE(file.ok());
  ExpectError(file.status(), absl::StatusCode::kNotFound, missing + ": offset 0: cannot open");
}

TEST_F(CorruptionTest, Directory) {
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::Open(dir_);
  ASSERT_FALSE(file.ok());
  ExpectError(file.status(), absl::StatusCode::kInvalidArgument, "not a regular file");
}

TEST_F(CorruptionTest, EmptyFile) {
  absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes("", "empty.sst");
  ASSERT_FALSE(file.ok());
  ExpectError(file.status(), absl::StatusCode::kInvalidArgument,
              path_ + ": offset 0: file is too short (0 bytes) to be an SST file");
}

TEST_F(CorruptionTest, RandomFile) {
  std::mt19937_64 rng(7);
  std::string bytes(10000, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes(bytes, "random.sst");
  ASSERT_FALSE(file.ok());
  ExpectError(file.status(), absl::StatusCode::kInvalidArgument,
              path_ + ": offset 9992: not a block-based SST file");
}

TEST_F(CorruptionTest, TruncatedFile) {
  for (size_t keep : {good_.size() - 1, good_.size() / 2, size_t{60}, size_t{20}}) {
    absl::StatusOr<std::unique_ptr<SstFile>> file =
        OpenBytes(good_.substr(0, keep), "truncated.sst");
    ASSERT_FALSE(file.ok()) << keep;
    EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument) << file.status();
    EXPECT_TRUE(absl::StartsWith(file.status().message(), path_ + ": offset ")) << file.status();
  }
}

TEST_F(CorruptionTest, WrongMagic) {
  std::string bytes = good_;
  bytes[bytes.size() - 3] ^= 0x55;
  absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes(bytes, "magic.sst");
  ASSERT_FALSE(file.ok());
  ExpectError(file.status(), absl::StatusCode::kInvalidArgument,
              absl::StrCat(path_, ": offset ", bytes.size() - 8, ": not a block-based SST file"));
}

TEST_F(CorruptionTest, FlippedDataByteIsChecksumMismatchAtItsBlock) {
  const BlockHandle victim = handles_[handles_.size() / 2];
  std::string bytes = good_;
  bytes[victim.offset + victim.size / 2] ^= 0x01;
  absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes(bytes, "flipped.sst");
  ASSERT_TRUE(file.ok()) << file.status();  // the metadata is intact
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_TRUE(handles.ok()) << handles.status();
  const std::string expected =
      absl::StrCat(path_, ": offset ", victim.offset, ": block checksum mismatch");
  absl::StatusOr<RawBlock> raw = (*file)->ReadRawBlock(victim, /*verify_checksum=*/true);
  ASSERT_FALSE(raw.ok());
  ExpectError(raw.status(), absl::StatusCode::kDataLoss, expected);
  absl::StatusOr<std::string> contents = (*file)->ReadBlockContents(victim);
  ASSERT_FALSE(contents.ok());
  ExpectError(contents.status(), absl::StatusCode::kDataLoss, expected);
  // Unverified, the damaged zstd block reads or fails cleanly.
  raw = (*file)->ReadRawBlock(victim, /*verify_checksum=*/false);
  ASSERT_TRUE(raw.ok()) << raw.status();
  (void)(*file)->Decompress(*raw, BlockKind::kData);
  // Its neighbours are fine.
  EXPECT_TRUE((*file)->ReadBlockContents(handles_.front()).ok());
}

TEST_F(CorruptionTest, FlippedIndexByte) {
  std::string bytes = good_;
  bytes[index_.offset + 1] ^= 0x10;
  absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes(bytes, "index.sst");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_FALSE(handles.ok());
  ExpectError(handles.status(), absl::StatusCode::kDataLoss,
              absl::StrCat(path_, ": offset ", index_.offset, ": block checksum mismatch"));
}

TEST_F(CorruptionTest, FlippedMetaindexAndPropertiesBytes) {
  for (const BlockHandle& h : {metaindex_, properties_}) {
    std::string bytes = good_;
    bytes[h.offset + h.size / 2] ^= 0x04;
    absl::StatusOr<std::unique_ptr<SstFile>> file = OpenBytes(bytes, "meta.sst");
    ASSERT_FALSE(file.ok());
    ExpectError(file.status(), absl::StatusCode::kDataLoss,
                absl::StrCat(path_, ": offset ", h.offset, ": block checksum mismatch"));
  }
}

TEST_F(CorruptionTest, RewrittenGlobalSeqnoStillVerifies) {
  // RocksDB's ingestion (write_global_seqno) rewrites this property in place
  // and leaves the checksum alone; RocksDB accepts such files, so must we.
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::Open(fixture_.path);
  ASSERT_TRUE(file.ok()) << file.status();
  std::optional<size_t> at = (*file)->properties().global_seqno_value_offset();
  ASSERT_TRUE(at.has_value());
  std::string bytes = good_;
  bytes[properties_.offset + *at] = 42;
  absl::StatusOr<std::unique_ptr<SstFile>> rewritten = OpenBytes(bytes, "ingested.sst");
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ((*rewritten)->properties().Get("rocksdb.external_sst_file.global_seqno")->at(0), 42);
}

TEST_F(CorruptionTest, InputFileIsNeverModified) {
  struct stat before, after;
  ASSERT_EQ(stat(fixture_.path.c_str(), &before), 0);
  ASSERT_EQ(chmod(fixture_.path.c_str(), 0444), 0);
  {
    absl::StatusOr<std::unique_ptr<SstFile>> file =
        SstFile::Open(fixture_.path, sst_testing::TestReadOptions());
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<sst_testing::KeyValues> all = sst_testing::ReadAllDataEntries(**file);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(all->size(), fixture_.kvs.size());
  }
  ASSERT_EQ(stat(fixture_.path.c_str(), &after), 0);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(ReadFile(fixture_.path), good_);
}

// Reads everything reachable; any status is fine, crashes and sanitizer
// reports are not.
void Exercise(const std::string& bytes, bool verify) {
  SstReadOptions options = sst_testing::TestReadOptions();
  options.verify_checksums = verify;
  options.max_block_size = 1 << 20;
  absl::StatusOr<std::unique_ptr<SstFile>> file =
      SstFile::OpenFromBuffer(bytes, std::move(options), "mutant.sst");
  if (!file.ok()) {
    EXPECT_TRUE(absl::StartsWith(file.status().message(), "mutant.sst: offset ")) << file.status();
    return;
  }
  (void)(*file)->IndexPartitionHandles();
  (void)sst_testing::ReadAllDataEntries(**file);
}

TEST_F(CorruptionTest, EveryTruncationAndSampledMutationsAreHandled) {
  SstFixtureOptions o;
  o.compression = rocksdb::kZSTD;
  o.max_dict_bytes = 1 << 10;
  o.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  o.index_block_restart_interval = 4;
  o.metadata_block_size = 128;
  o.block_size = 512;
  o.num_keys = 60;
  o.value_size = 40;
  absl::StatusOr<SstFixture> small = sst_testing::WriteSstFile(o, dir_ + "/small.sst");
  ASSERT_TRUE(small.ok()) << small.status();
  const std::string bytes = ReadFile(small->path);
  for (size_t n = 0; n < bytes.size(); ++n) Exercise(bytes.substr(0, n), true);
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string mutant = bytes;
    mutant[i] = static_cast<char>(rng());
    Exercise(mutant, /*verify=*/false);
    Exercise(mutant, /*verify=*/true);
  }
}

TEST(SyntheticMutations, Fv7FilesWithoutChecksums) {
  // With checksums off every mutation reaches the parsers.
  sst_testing::KeyValues kvs;
  for (int i = 0; i < 40; ++i) {
    kvs.emplace_back(sst_testing::MakeInternalKey("key" + std::to_string(1000 + i), i), "v");
  }
  for (IndexType type : {IndexType::kTwoLevelIndexSearch, IndexType::kBinarySearchWithFirstKey}) {
    sst_testing::SyntheticSstOptions o;
    o.format_version = 7;
    o.checksum = ChecksumType::kNoChecksum;
    o.index_type = type;
    o.index_restart_interval = 3;
    o.separated_kv = type == IndexType::kTwoLevelIndexSearch;
    o.data_hash_buckets = 3;
    const std::string bytes = sst_testing::BuildSyntheticSst(kvs, o).bytes;
    std::mt19937_64 rng(2);
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (int k = 0; k < 3; ++k) {
        std::string mutant = bytes;
        mutant[i] = static_cast<char>(rng());
        Exercise(mutant, false);
      }
    }
  }
}

}  // namespace
}  // namespace rockpool::sst
