// The reader against files written by the real RocksDB over a grid of
// compression x format_version x checksum x index type (x zstd dictionary,
// x index restart interval), checked against RocksDB's own table properties
// and the key/values that went in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compression/compression_type.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/internal_key.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst {
namespace {

using sst_testing::SstFixture;
using sst_testing::SstFixtureOptions;
using RocksIndex = rocksdb::BlockBasedTableOptions;

std::vector<SstFixtureOptions> Grid() {
  std::vector<SstFixtureOptions> grid;
  const rocksdb::CompressionType compressions[] = {rocksdb::kNoCompression, rocksdb::kZSTD,
                                                   rocksdb::kZlibCompression};
  const rocksdb::ChecksumType checksums[] = {rocksdb::kCRC32c, rocksdb::kxxHash, rocksdb::kxxHash64,
                                             rocksdb::kXXH3};
  const RocksIndex::IndexType indexes[] = {RocksIndex::kBinarySearch,
                                           RocksIndex::kTwoLevelIndexSearch};
  for (rocksdb::CompressionType c : compressions) {
    for (uint32_t fv = 2; fv <= 5; ++fv) {
      for (rocksdb::ChecksumType k : checksums) {
        for (RocksIndex::IndexType index : indexes) {
          for (bool dict : {false, true}) {
            if (dict && c != rocksdb::kZSTD) continue;
            SstFixtureOptions o;
            o.compression = c;
            o.format_version = fv;
            o.checksum = k;
            o.index_type = index;
            // Alternate restart intervals so delta-encoded index values
            // (only used between restarts) show up in half the files.
            o.index_block_restart_interval = (fv + static_cast<int>(k)) % 2 == 0 ? 1 : 8;
            o.block_size = 1024 << (fv % 3);  // 1, 2 or 4 KiB
            o.metadata_block_size = 256;      // several index partitions
            if (dict) {
              o.max_dict_bytes = 8 << 10;
              o.zstd_max_train_bytes = 64 << 10;
            }
            grid.push_back(o);
          }
        }
      }
    }
  }
  // Other index layouts and data block hash indexes.
  for (rocksdb::CompressionType c : {rocksdb::kNoCompression, rocksdb::kZSTD}) {
    SstFixtureOptions o;
    o.compression = c;
    o.index_type = RocksIndex::kBinarySearchWithFirstKey;
    o.index_block_restart_interval = 4;
    grid.push_back(o);
    o.index_type = RocksIndex::kHashSearch;
    o.index_block_restart_interval = 1;
    grid.push_back(o);
    o.index_type = RocksIndex::kBinarySearch;
    o.data_block_hash_index = true;
    grid.push_back(o);
  }
  // zlib with a raw-sample dictionary; uncompressed index blocks.
  SstFixtureOptions zlib_dict;
  zlib_dict.compression = rocksdb::kZlibCompression;
  zlib_dict.max_dict_bytes = 4 << 10;
  zlib_dict.index_type = RocksIndex::kTwoLevelIndexSearch;
  zlib_dict.enable_index_compression = false;
  grid.push_back(zlib_dict);
  return grid;
}

uint32_t ExpectedIndexType(RocksIndex::IndexType t) { return static_cast<uint32_t>(t); }

void CheckFile(const SstFixtureOptions& o, const SstFixture& fixture, uint64_t first_seq) {
  absl::StatusOr<std::unique_ptr<SstFile>> opened =
      SstFile::Open(fixture.path, sst_testing::TestReadOptions());
  ASSERT_TRUE(opened.ok()) << opened.status();
  const SstFile& file = **opened;
  absl::StatusOr<std::shared_ptr<const rocksdb::TableProperties>> rocks =
      sst_testing::ReadRocksDbTableProperties(fixture.path);
  ASSERT_TRUE(rocks.ok()) << rocks.status();

  // Footer.
  EXPECT_EQ(file.footer().format_version, o.format_version);
  EXPECT_EQ(static_cast<int>(file.footer().checksum_type), static_cast<int>(o.checksum));
  EXPECT_FALSE(file.footer().legacy_magic);

  // Properties agree with RocksDB's parse.
  const TableProperties& props = file.properties();
  EXPECT_EQ(props.compression_name(), (*rocks)->compression_name);
  EXPECT_EQ(props.num_data_blocks(), (*rocks)->num_data_blocks);
  EXPECT_EQ(props.num_entries(), fixture.kvs.size());
  EXPECT_EQ(props.data_size(), (*rocks)->data_size);
  EXPECT_EQ(props.index_size(), (*rocks)->index_size);
  EXPECT_EQ(props.index_partitions(), (*rocks)->index_partitions);
  EXPECT_EQ(props.index_key_is_user_key(), (*rocks)->index_key_is_user_key != 0);
  EXPECT_EQ(props.index_value_is_delta_encoded(), (*rocks)->index_value_is_delta_encoded != 0);
  EXPECT_EQ(props.index_value_is_delta_encoded(), o.format_version >= 4);
  absl::StatusOr<uint32_t> index_type = props.index_type();
  ASSERT_TRUE(index_type.ok()) << index_type.status();
  EXPECT_EQ(*index_type, ExpectedIndexType(o.index_type));
  EXPECT_EQ(static_cast<uint32_t>(file.index_type()), ExpectedIndexType(o.index_type));
  for (const auto& [name, value] : (*rocks)->user_collected_properties) {
    std::optional<std::string_view> ours = props.Get(name);
    ASSERT_TRUE(ours.has_value()) << name;
    EXPECT_EQ(*ours, value) << name;
  }

  // Dictionary.
  if (o.max_dict_bytes > 0) {
    EXPECT_FALSE(file.compression_dictionary().empty());
    EXPECT_LE(file.compression_dictionary().size(), o.max_dict_bytes);
  } else {
    EXPECT_TRUE(file.compression_dictionary().empty());
  }

  // Data block handles.
  absl::StatusOr<std::vector<BlockHandle>> handles = file.DataBlockHandles();
  ASSERT_TRUE(handles.ok()) << handles.status();
  EXPECT_EQ(handles->size(), fixture.num_data_blocks);
  EXPECT_GT(handles->size(), 20u);  // small blocks: many of them
  if (o.index_type == RocksIndex::kTwoLevelIndexSearch) {
    absl::StatusOr<std::vector<BlockHandle>> partitions = file.IndexPartitionHandles();
    ASSERT_TRUE(partitions.ok()) << partitions.status();
    EXPECT_EQ(partitions->size(), (*rocks)->index_partitions);
    EXPECT_GT(partitions->size(), 1u);
  }

  // Value delta encoding is really exercised: between restart points
  // (index_block_restart_interval > 1) entries hold size deltas.
  if (o.format_version >= 4 && o.index_block_restart_interval > 1) {
    const BlockHandle first_index_block = o.index_type == RocksIndex::kTwoLevelIndexSearch
                                              ? file.IndexPartitionHandles()->at(0)
                                              : file.index_handle();
    absl::StatusOr<std::string> index =
        file.ReadBlockContents(first_index_block, BlockKind::kIndex);
    ASSERT_TRUE(index.ok()) << index.status();
    absl::StatusOr<BlockIterator> it = BlockIterator::Create(
        *index, {.value_encoding = ValueEncoding::kIndexHandle,
                 .index_has_first_key = o.index_type == RocksIndex::kBinarySearchWithFirstKey});
    ASSERT_TRUE(it.ok()) << it.status();
    int deltas = 0;
    while (it->Next()) deltas += it->value_is_delta() ? 1 : 0;
    ASSERT_TRUE(it->status().ok()) << it->status();
    EXPECT_GT(deltas, 0);
  }

  // Every block's checksum verifies; blocks decompress and iterate to the
  // key/values written.
  size_t kv = 0, compressed_blocks = 0;
  uint64_t data_bytes = 0;
  for (const BlockHandle& h : *handles) {
    absl::StatusOr<RawBlock> raw = file.ReadRawBlock(h, /*verify_checksum=*/true);
    ASSERT_TRUE(raw.ok()) << raw.status();
    data_bytes += h.size + kBlockTrailerSize;
    if (raw->compression_type != compression_type::kNone) {
      ++compressed_blocks;
      EXPECT_EQ(static_cast<int>(raw->compression_type), static_cast<int>(o.compression));
    }
    absl::StatusOr<std::string> contents = file.Decompress(*raw, BlockKind::kData);
    ASSERT_TRUE(contents.ok()) << contents.status();
    absl::StatusOr<BlockIterator> it = BlockIterator::Create(*contents);
    ASSERT_TRUE(it.ok()) << it.status();
    EXPECT_EQ(it->layout().has_hash_index, o.data_block_hash_index);
    while (it->Next()) {
      ASSERT_LT(kv, fixture.kvs.size());
      std::optional<ParsedInternalKey> ikey = ParseInternalKey(it->key());
      ASSERT_TRUE(ikey.has_value());
      ASSERT_EQ(ikey->user_key, fixture.kvs[kv].first) << "entry " << kv;
      ASSERT_EQ(it->value(), fixture.kvs[kv].second) << "entry " << kv;
      EXPECT_EQ(ikey->type, 1);  // kTypeValue
      EXPECT_EQ(ikey->sequence, first_seq == 0 ? 0 : first_seq + kv);
      ++kv;
    }
    ASSERT_TRUE(it->status().ok()) << it->status();
  }
  EXPECT_EQ(kv, fixture.kvs.size());
  EXPECT_EQ(data_bytes, (*rocks)->data_size);
  if (o.compression != rocksdb::kNoCompression) {
    EXPECT_GT(compressed_blocks, handles->size() / 2);
  } else {
    EXPECT_EQ(compressed_blocks, 0u);
  }

  // The index and metaindex verify too.
  EXPECT_TRUE(file.ReadRawBlock(file.index_handle(), true).ok());
  EXPECT_TRUE(file.ReadRawBlock(file.footer().metaindex_handle, true).ok());
}

class RocksDbGridTest : public testing::TestWithParam<SstFixtureOptions> {};

TEST_P(RocksDbGridTest, SstFileWriter) {
  const SstFixtureOptions& o = GetParam();
  absl::StatusOr<SstFixture> fixture =
      sst_testing::WriteSstFile(o, sst_testing::TestTempDir() + "/" + o.Name() + ".sst");
  ASSERT_TRUE(fixture.ok()) << fixture.status();
  CheckFile(o, *fixture, /*first_seq=*/0);
}

INSTANTIATE_TEST_SUITE_P(Grid, RocksDbGridTest, testing::ValuesIn(Grid()),
                         [](const testing::TestParamInfo<SstFixtureOptions>& info) {
                           return info.param.Name();
                         });

TEST(RocksDbFlush, FlushedDbFile) {
  for (rocksdb::CompressionType c : {rocksdb::kNoCompression, rocksdb::kZSTD}) {
    SstFixtureOptions o;
    o.compression = c;
    o.index_type = RocksIndex::kTwoLevelIndexSearch;
    o.index_block_restart_interval = 4;
    absl::StatusOr<SstFixture> fixture =
        sst_testing::WriteSstByFlush(o, sst_testing::TestTempDir() + "/db");
    ASSERT_TRUE(fixture.ok()) << fixture.status();
    CheckFile(o, *fixture, /*first_seq=*/1);
  }
}

TEST(RocksDbFixture, ReadAllDataEntriesMatches) {
  SstFixtureOptions o;
  o.compression = rocksdb::kZSTD;
  o.max_dict_bytes = 8 << 10;
  o.zstd_max_train_bytes = 64 << 10;
  absl::StatusOr<SstFixture> fixture =
      sst_testing::WriteSstFile(o, sst_testing::TestTempDir() + "/all.sst");
  ASSERT_TRUE(fixture.ok()) << fixture.status();
  absl::StatusOr<std::unique_ptr<SstFile>> file =
      SstFile::Open(fixture->path, sst_testing::TestReadOptions());
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<sst_testing::KeyValues> entries = sst_testing::ReadAllDataEntries(**file);
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), fixture->kvs.size());
  for (size_t i = 0; i < entries->size(); ++i) {
    ASSERT_EQ(ParseInternalKey((*entries)[i].first)->user_key, fixture->kvs[i].first);
    ASSERT_EQ((*entries)[i].second, fixture->kvs[i].second);
  }
}

TEST(RocksDbFixture, CompressedFileWithoutDecompressorFailsClearly) {
  SstFixtureOptions o;
  o.compression = rocksdb::kZSTD;
  const std::string path = sst_testing::TestTempDir() + "/nohook.sst";
  absl::StatusOr<SstFixture> fixture = sst_testing::WriteSstFile(o, path);
  ASSERT_TRUE(fixture.ok()) << fixture.status();
  absl::StatusOr<std::unique_ptr<SstFile>> file = SstFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();  // meta blocks are uncompressed
  absl::StatusOr<std::vector<BlockHandle>> handles = (*file)->DataBlockHandles();
  ASSERT_FALSE(handles.ok());  // the index block is zstd-compressed
  EXPECT_EQ(handles.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(handles.status().message(),
                                path + ": offset " +
                                    std::to_string((*file)->index_handle().offset) +
                                    ": unsupported: block compressed with zstd (type 7) but no "
                                    "decompressor"))
      << handles.status();
}

}  // namespace
}  // namespace rockpool::sst
