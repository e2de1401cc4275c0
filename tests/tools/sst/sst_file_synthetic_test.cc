// The reader on synthetic files (tests/tools/sst/synthetic_sst.h): format_version
// 6 and 7 footers with context checksums, separated key/value data blocks,
// custom compression types and dictionary plumbing. For format_version <= 5
// the same writer's files are read back by RocksDB itself, which validates
// the writer these tests lean on.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "compression/block_codecs.h"
#include "compression/coding.h"
#include "compression/compression_type.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tests/tools/sst/synthetic_sst.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst {
namespace {

using sst_testing::BuildSyntheticSst;
using sst_testing::KeyValues;
using sst_testing::MakeInternalKey;
using sst_testing::SyntheticSst;
using sst_testing::SyntheticSstOptions;

KeyValues InternalKvs(size_t n) {
  KeyValues kvs;
  for (size_t i = 0; i < n; ++i) {
    kvs.emplace_back(MakeInternalKey(absl::StrFormat("user%08d", i * 3), i + 1),
                     absl::StrFormat("value-%d-%s", i, std::string(i % 40, 'z')));
  }
  return kvs;
}

void ExpectReads(const SyntheticSst& sst, const KeyValues& kvs, SstReadOptions options = {}) {
  absl::StatusOr<std::unique_ptr<SstFile>> file =
      SstFile::OpenFromBuffer(sst.bytes, std::move(options), "synthetic.sst");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->index_handle(), sst.index);
  EXPECT_EQ((*file)->properties().num_data_blocks(), sst.data_blocks.size());
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_TRUE(handles.ok()) << handles.status();
  EXPECT_EQ(*handles, sst.data_blocks);
  absl::StatusOr<std::vector<BlockHandle>> partitions = (*file)->IndexPartitionHandles();
  ASSERT_TRUE(partitions.ok()) << partitions.status();
  EXPECT_EQ(*partitions, sst.index_partitions);
  for (const BlockHandle& h : *handles) {
    EXPECT_TRUE((*file)->ReadRawBlock(h, true).ok());
  }
  absl::StatusOr<KeyValues> entries = sst_testing::ReadAllDataEntries(**file);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(*entries, kvs);
}

// fv x checksum x index type x delta x index restart interval.
class SyntheticGridTest
    : public testing::TestWithParam<std::tuple<uint32_t, int, IndexType, bool, int>> {};

TEST_P(SyntheticGridTest, ReadsBack) {
  const auto [fv, checksum, index_type, delta, index_restart] = GetParam();
  SyntheticSstOptions o;
  o.format_version = fv;
  o.legacy_magic = fv == 0;
  o.checksum = fv == 0 ? ChecksumType::kCRC32c : static_cast<ChecksumType>(checksum);
  o.index_type = index_type;
  o.index_value_delta_encoded = delta;
  o.index_restart_interval = index_restart;
  const KeyValues kvs = InternalKvs(150);
  ExpectReads(BuildSyntheticSst(kvs, o), kvs);
}

INSTANTIATE_TEST_SUITE_P(Formats, SyntheticGridTest,
                         testing::Combine(testing::Values(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u),
                                          testing::Range(0, 5),
                                          testing::Values(IndexType::kBinarySearch,
                                                          IndexType::kTwoLevelIndexSearch,
                                                          IndexType::kBinarySearchWithFirstKey),
                                          testing::Bool(), testing::Values(1, 3)));

// RocksDB reads what the synthetic writer produces (format_version <= 5).
class RocksDbReadsSyntheticTest
    : public testing::TestWithParam<std::tuple<uint32_t, int, IndexType, int>> {};

TEST_P(RocksDbReadsSyntheticTest, IteratesAndVerifies) {
  const auto [fv, checksum, index_type, index_restart] = GetParam();
  SyntheticSstOptions o;
  o.format_version = fv;
  o.legacy_magic = fv == 0;
  o.checksum = fv == 0 ? ChecksumType::kCRC32c : static_cast<ChecksumType>(checksum);
  o.index_type = index_type;
  o.index_restart_interval = index_restart;
  o.data_hash_buckets = fv % 2 == 0 ? 5 : 0;
  const KeyValues kvs = InternalKvs(150);
  const SyntheticSst sst = BuildSyntheticSst(kvs, o);
  const std::string path = sst_testing::TestTempDir() + "/synthetic.sst";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(sst.bytes.data(), static_cast<std::streamsize>(sst.bytes.size()));
  }
  rocksdb::Options options;
  rocksdb::SstFileReader reader(options);
  ASSERT_TRUE(reader.Open(path).ok());
  rocksdb::Status s = reader.VerifyChecksum();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(reader.GetTableProperties()->num_data_blocks, sst.data_blocks.size());
  std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(rocksdb::ReadOptions()));
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_LT(i, kvs.size());
    ASSERT_EQ(it->key().ToString(), kvs[i].first.substr(0, kvs[i].first.size() - 8));
    ASSERT_EQ(it->value().ToString(), kvs[i].second);
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(i, kvs.size());
  // Point lookups go through the index (and partitions).
  it->Seek("user00000300");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "user00000300");
}

INSTANTIATE_TEST_SUITE_P(Formats, RocksDbReadsSyntheticTest,
                         testing::Combine(testing::Values(0u, 1u, 2u, 3u, 4u, 5u),
                                          testing::Range(1, 5),
                                          testing::Values(IndexType::kBinarySearch,
                                                          IndexType::kTwoLevelIndexSearch,
                                                          IndexType::kBinarySearchWithFirstKey),
                                          testing::Values(1, 3)));

TEST(Synthetic, SeparatedKeyValueAndHashIndexBlocks) {
  for (uint32_t fv : {5u, 7u}) {
    SyntheticSstOptions o;
    o.format_version = fv;
    o.separated_kv = true;
    o.data_restart_interval = 3;
    o.data_hash_buckets = 11;
    const KeyValues kvs = InternalKvs(100);
    ExpectReads(BuildSyntheticSst(kvs, o), kvs);
  }
}

TEST(Synthetic, ContextChecksumBindsBlocksToOffsets) {
  const KeyValues kvs = InternalKvs(50);
  for (uint32_t fv : {5u, 6u}) {
    SyntheticSstOptions o;
    o.format_version = fv;
    const SyntheticSst sst = BuildSyntheticSst(kvs, o);
    absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::OpenFromBuffer(sst.bytes);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<RawBlock> raw = (*file)->ReadRawBlock(sst.data_blocks[2], false);
    ASSERT_TRUE(raw.ok()) << raw.status();
    EXPECT_TRUE((*file)->VerifyChecksum(*raw).ok());
    raw->handle.offset += 1;  // the same bytes claimed at another offset
    EXPECT_EQ((*file)->VerifyChecksum(*raw).ok(), fv < 6);
  }
}

TEST(Synthetic, V7WithZstdAndDictionaryThroughCodecs) {
  static CompressionPools pools;
  static BlockCodecs codecs(&pools);
  const std::string dict_bytes = "user0000 value- zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
  absl::StatusOr<std::shared_ptr<const ZstdDictionary>> dict =
      ZstdDictionary::Create(dict_bytes, kRocksDbDefaultLevel);
  ASSERT_TRUE(dict.ok()) << dict.status();
  SyntheticSstOptions o;
  o.format_version = 7;
  o.checksum = ChecksumType::kXXH3;
  o.index_type = IndexType::kTwoLevelIndexSearch;
  o.compression_dict = dict_bytes;
  o.compressor = [&](std::string_view contents, bool is_data) {
    std::string out;
    absl::Status s = codecs.zstd().Compress(contents, kRocksDbDefaultLevel,
                                            is_data ? dict->get() : nullptr, &out);
    EXPECT_TRUE(s.ok()) << s;
    return std::make_pair(compression_type::kZSTD, out);
  };
  const KeyValues kvs = InternalKvs(200);
  const SyntheticSst sst = BuildSyntheticSst(kvs, o);
  ExpectReads(sst, kvs, sst_testing::TestReadOptions());
  absl::StatusOr<std::unique_ptr<SstFile>> file =
      SstFile::OpenFromBuffer(sst.bytes, sst_testing::TestReadOptions());
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->compression_dictionary(), dict_bytes);
  EXPECT_EQ((*file)->ReadRawBlock(sst.data_blocks[0], true)->compression_type,
            compression_type::kZSTD);
}

TEST(Synthetic, DictionaryOnlyForDataBlocksAndCustomTypes) {
  static constexpr uint8_t kCustom = 0x88;
  SyntheticSstOptions o;
  o.format_version = 6;
  o.index_type = IndexType::kTwoLevelIndexSearch;
  o.compression_dict = "DICT";
  // "Compression": reverse the bytes, tag data blocks so the reader's
  // decompressor can check the dictionary it is given.
  o.compressor = [](std::string_view contents, bool is_data) {
    std::string out(contents.rbegin(), contents.rend());
    out.push_back(is_data ? 'D' : 'I');
    return std::make_pair(kCustom, out);
  };
  int data_calls = 0, other_calls = 0;
  SstReadOptions options;
  options.decompressor = [&](uint8_t type, std::string_view payload, std::string_view dict,
                             std::string* out) -> absl::Status {
    if (type != kCustom || payload.empty()) return absl::InvalidArgumentError("bad call");
    const bool is_data = payload.back() == 'D';
    (is_data ? data_calls : other_calls)++;
    if (dict != (is_data ? "DICT" : "")) return absl::InvalidArgumentError("wrong dictionary");
    out->assign(payload.rbegin() + 1, payload.rend());
    return absl::OkStatus();
  };
  const KeyValues kvs = InternalKvs(120);
  const SyntheticSst sst = BuildSyntheticSst(kvs, o);
  ExpectReads(sst, kvs, options);
  EXPECT_GT(data_calls, 0);
  EXPECT_GT(other_calls, 0);
  // A failing hook's error carries file and offset.
  options.decompressor = [](uint8_t, std::string_view, std::string_view, std::string*) {
    return absl::DataLossError("codec says no");
  };
  absl::StatusOr<std::unique_ptr<SstFile>> file =
      SstFile::OpenFromBuffer(sst.bytes, options, "x.sst");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_FALSE(handles.ok());
  EXPECT_EQ(handles.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(handles.status().message(),
            absl::StrFormat("x.sst: offset %d: codec says no", sst.index.offset));
}

TEST(Synthetic, DeclaredUncompressedSizeIsBounded) {
  SyntheticSstOptions o;
  o.format_version = 5;
  o.compressor = [](std::string_view, bool) {
    std::string out;
    PutVarint32(&out, 0xfffffff0u);  // claims ~4 GiB
    out += "junk";
    return std::make_pair(compression_type::kZSTD, out);
  };
  const SyntheticSst sst = BuildSyntheticSst(InternalKvs(30), o);
  SstReadOptions options;
  bool called = false;
  options.decompressor = [&](uint8_t, std::string_view, std::string_view, std::string*) {
    called = true;
    return absl::OkStatus();
  };
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::OpenFromBuffer(sst.bytes, options);
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_FALSE(handles.ok());
  EXPECT_EQ(handles.status().code(), absl::StatusCode::kResourceExhausted) << handles.status();
  EXPECT_FALSE(called);
}

TEST(Synthetic, MaxBlockSizeBoundsReads) {
  const SyntheticSst sst = BuildSyntheticSst(InternalKvs(30), {});
  SstReadOptions options;
  options.max_block_size = 16;
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::OpenFromBuffer(sst.bytes, options);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kResourceExhausted) << file.status();
}

TEST(Synthetic, Fv6WithoutIndexEntryInMetaindex) {
  // A format_version 6 file must name its index in the metaindex; rewrite
  // the footer's version of a format_version 5 file to 6 and it is rejected
  // (bad extended magic), never misread.
  SyntheticSstOptions o;
  o.format_version = 5;
  std::string bytes = BuildSyntheticSst(InternalKvs(30), o).bytes;
  bytes[bytes.size() - 12] = 6;
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::OpenFromBuffer(bytes);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kDataLoss) << file.status();
}

}  // namespace
}  // namespace rockpool::sst
