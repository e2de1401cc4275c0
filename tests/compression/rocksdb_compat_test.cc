// Compatibility with RocksDB 7.8.3: for SSTs RocksDB writes (zstd at several
// levels, with and without a dictionary; zlib at several levels, window
// sizes and strategies; LZ4 and LZ4HC at several levels, with and without a
// dictionary), every data block decompresses with rockpool's
// codecs, and recompressing it with rockpool's pooled codecs gives exactly
// the bytes RocksDB wrote.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compression/block_codecs.h"
#include "tests/tools/sst/sst_fixtures.h"
#include "tools/sst/sst_file.h"

namespace rockpool {
namespace {

using sst_testing::SstFixtureOptions;

struct CompatCase {
  std::string name;
  rocksdb::CompressionType type;
  int level = rocksdb::CompressionOptions::kDefaultCompressionLevel;
  int window_bits = -14;
  int strategy = 0;
  uint32_t max_dict_bytes = 0;
  uint32_t zstd_max_train_bytes = 0;
};

void PrintTo(const CompatCase& c, std::ostream* os) { *os << c.name; }

class RocksDbCompatTest : public ::testing::TestWithParam<CompatCase> {};

TEST_P(RocksDbCompatTest, BlocksDecompressAndRecompressByteIdentical) {
  const CompatCase& c = GetParam();
  SstFixtureOptions o;
  o.compression = c.type;
  o.block_size = 4096;
  o.num_keys = 4000;
  o.max_dict_bytes = c.max_dict_bytes;
  o.zstd_max_train_bytes = c.zstd_max_train_bytes;
  o.customize = [&c](rocksdb::Options* options, rocksdb::BlockBasedTableOptions*) {
    options->compression_opts.level = c.level;
    options->compression_opts.window_bits = c.window_bits;
    options->compression_opts.strategy = c.strategy;
    options->bottommost_compression_opts = options->compression_opts;
  };
  const std::string dir = sst_testing::TestTempDir();
  // Through a flushed DB: what RocksDB's table builder writes in production.
  auto fixture = sst_testing::WriteSstByFlush(o, dir);
  ASSERT_TRUE(fixture.ok()) << fixture.status();

  CompressionPools pools;
  BlockCodecs codecs(&pools);
  auto file = sst::SstFile::Open(fixture->path, sst_testing::TestReadOptions());
  ASSERT_TRUE(file.ok()) << file.status();
  std::shared_ptr<const ZstdDictionary> dict;
  if (!(*file)->compression_dictionary().empty()) {
    auto d = ZstdDictionary::Create((*file)->compression_dictionary(), c.level);
    ASSERT_TRUE(d.ok()) << d.status();
    dict = *d;
  }
  if (c.max_dict_bytes > 0) {
    ASSERT_NE(dict, nullptr) << "RocksDB wrote no dictionary";
  }
  auto handles = (*file)->DataBlockHandles();
  ASSERT_TRUE(handles.ok()) << handles.status();
  size_t compared = 0;
  for (const sst::BlockHandle& h : *handles) {
    auto block = (*file)->ReadRawBlock(h, /*verify_checksum=*/true);
    ASSERT_TRUE(block.ok()) << block.status();
    if (block->compression_type == 0) continue;  // RocksDB kept it raw
    ASSERT_EQ(block->compression_type, static_cast<uint8_t>(c.type));
    std::string plain, ours;
    ASSERT_TRUE(
        codecs.Decompress(block->compression_type, block->payload(), dict.get(), &plain).ok());
    if (c.type == rocksdb::kZSTD) {
      ASSERT_TRUE(codecs.zstd().Compress(plain, c.level, dict.get(), &ours).ok());
    } else if (c.type == rocksdb::kLZ4Compression || c.type == rocksdb::kLZ4HCCompression) {
      Lz4BlockOptions lo;
      lo.high_compression = c.type == rocksdb::kLZ4HCCompression;
      lo.level = c.level;
      lo.dictionary = dict != nullptr ? dict->raw() : std::string_view();
      ASSERT_TRUE(codecs.lz4().Compress(plain, lo, &ours).ok());
    } else {
      ZlibBlockOptions zo;
      zo.level = c.level;
      zo.window_bits = c.window_bits;
      zo.strategy = c.strategy;
      zo.dictionary = dict != nullptr ? dict->raw() : std::string_view();
      ASSERT_TRUE(codecs.zlib().Compress(plain, zo, &ours).ok());
    }
    ASSERT_EQ(ours, block->payload()) << c.name << ": block at offset " << h.offset;
    ++compared;
  }
  EXPECT_GT(compared, 30u);
  // The whole file's entries decode to what was written.
  auto entries = sst_testing::ReadAllDataEntries(**file);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(entries->size(), fixture->kvs.size());
}

INSTANTIATE_TEST_SUITE_P(
    RocksDb783, RocksDbCompatTest,
    ::testing::Values(CompatCase{"zstd_default", rocksdb::kZSTD},
                      CompatCase{"zstd_1", rocksdb::kZSTD, 1},
                      CompatCase{"zstd_9", rocksdb::kZSTD, 9},
                      CompatCase{"zstd_neg3", rocksdb::kZSTD, -3},
                      CompatCase{"zstd_3_raw_dict", rocksdb::kZSTD, 3, -14, 0, 8192},
                      CompatCase{"zstd_5_trained_dict", rocksdb::kZSTD, 5, -14, 0, 4096, 65536},
                      CompatCase{"zlib_default", rocksdb::kZlibCompression},
                      CompatCase{"zlib_1", rocksdb::kZlibCompression, 1},
                      CompatCase{"zlib_9_wb15", rocksdb::kZlibCompression, 9, -15},
                      CompatCase{"zlib_6_wb10_filtered", rocksdb::kZlibCompression, 6, -10, 1},
                      CompatCase{"zlib_4_rle", rocksdb::kZlibCompression, 4, -14, 3},
                      CompatCase{"zlib_dict", rocksdb::kZlibCompression, 6, -14, 0, 8192},
                      CompatCase{"lz4", rocksdb::kLZ4Compression},
                      CompatCase{"lz4_dict", rocksdb::kLZ4Compression, -1, -14, 0, 8192},
                      CompatCase{"lz4hc_default", rocksdb::kLZ4HCCompression},
                      CompatCase{"lz4hc_4", rocksdb::kLZ4HCCompression, 4},
                      CompatCase{"lz4hc_12", rocksdb::kLZ4HCCompression, 12},
                      CompatCase{"lz4hc_9_dict", rocksdb::kLZ4HCCompression, 9, -14, 0, 8192}),
    [](const ::testing::TestParamInfo<CompatCase>& info) { return info.param.name; });

}  // namespace
}  // namespace rockpool
