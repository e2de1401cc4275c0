// Writes the fuzz targets' seed corpus into <out>/<target>/:
//   zstd_block, zlib_block, lz4_block
//                           RocksDB-format blocks made by rockpool's codecs
//                           (sizes, levels, windows, strategies, dictionary)
//   zlib_stream             zlib- and gzip-framed streams
//   sst_reader              small SSTs written by the linked RocksDB (Debian
//                           7.8.3): every compression, checksum type, index
//                           type and format_version it writes
//   options_parser          option strings
// Usage: bazel run //tests/fuzz:make_seed_corpus -- $PWD/tests/fuzz/corpus
// The files are committed; regenerate only when a format changes. SSTs carry
// random session ids and times, so regenerated SSTs differ byte-wise.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "tests/compression/test_data.h"
#include "tests/fuzz/codec_fuzz_support.h"

namespace rockpool {
namespace {

namespace fs = std::filesystem;
using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

void Check(const absl::Status& s, const std::string& what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
    std::exit(1);
  }
}

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
    std::exit(1);
  }
}

void Blocks(const fs::path& out, const BlockCodecs& codecs, const ZstdDictionary& dict) {
  struct Input {
    std::string name;
    std::string bytes;
  };
  const std::vector<Input> inputs = {
      {"empty", ""},
      {"one", "x"},
      {"text300", SemiCompressible(300, 1)},
      {"text3000", SemiCompressible(3000, 2)},
      {"random500", Incompressible(500, 3)},
      {"zeros2000", std::string(2000, '\0')},
  };
  for (const Input& in : inputs) {
    for (int level : {1, 3, 19, -5}) {
      if (in.bytes.size() < 1000 && level != 3) continue;  // keep the corpus small
      std::string block;
      Check(codecs.zstd().Compress(in.bytes, level, nullptr, &block), "zstd");
      Write(out / "zstd_block", absl::StrCat(in.name, "-l", level), block);
    }
    std::string block;
    Check(codecs.zstd().Compress(in.bytes, 3, &dict, &block), "zstd dict");
    Write(out / "zstd_block", absl::StrCat(in.name, "-dict"), block);

    struct ZlibCase {
      const char* name;
      int level, window_bits, strategy;
    };
    for (const ZlibCase& c :
         {ZlibCase{"default", kRocksDbDefaultLevel, -14, Z_DEFAULT_STRATEGY},
          ZlibCase{"l9w15", 9, -15, Z_DEFAULT_STRATEGY},
          ZlibCase{"l1w9", 1, -9, Z_DEFAULT_STRATEGY}, ZlibCase{"huffman", 6, -12, Z_HUFFMAN_ONLY},
          ZlibCase{"rle", 6, -14, Z_RLE}, ZlibCase{"fixed", 6, -14, Z_FIXED}}) {
      if (in.bytes.size() < 1000 && std::string(c.name) != "default") continue;
      ZlibBlockOptions o;
      o.level = c.level;
      o.window_bits = c.window_bits;
      o.strategy = c.strategy;
      Check(codecs.zlib().Compress(in.bytes, o, &block), "zlib");
      Write(out / "zlib_block", absl::StrCat(in.name, "-", c.name), block);
    }
    ZlibBlockOptions o;
    o.dictionary = dict.raw();
    Check(codecs.zlib().Compress(in.bytes, o, &block), "zlib dict");
    Write(out / "zlib_block", absl::StrCat(in.name, "-dict"), block);

    // LZ4 (the level is ignored) and LZ4HC at RocksDB's default (9), the
    // fastest and the slowest level, with and without a dictionary.
    for (const Lz4BlockOptions& lz :
         {Lz4BlockOptions{false, kRocksDbDefaultLevel, {}},
          Lz4BlockOptions{false, kRocksDbDefaultLevel, dict.raw()},
          Lz4BlockOptions{true, kRocksDbDefaultLevel, {}}, Lz4BlockOptions{true, 1, {}},
          Lz4BlockOptions{true, 12, {}}, Lz4BlockOptions{true, kRocksDbDefaultLevel, dict.raw()}}) {
      if (in.bytes.size() < 1000 && lz.high_compression && lz.level != kRocksDbDefaultLevel) {
        continue;
      }
      Check(codecs.lz4().Compress(in.bytes, lz, &block), "lz4");
      Write(out / "lz4_block",
            absl::StrCat(in.name, lz.high_compression ? "-hc" : "-lz4",
                         lz.level == kRocksDbDefaultLevel ? "" : absl::StrCat("-l", lz.level),
                         lz.dictionary.empty() ? "" : "-dict"),
            block);
    }

    for (int wb : {15, 9, 31, 25}) {
      if (in.bytes.size() < 1000 && (wb == 9 || wb == 25)) continue;
      Check(codecs.zlib().CompressStream(in.bytes, 6, wb, &block), "zlib stream");
      Write(out / "zlib_stream", absl::StrCat(in.name, wb > 15 ? "-gzip" : "-zlib", wb), block);
    }
  }
}

struct SstCase {
  std::string name;
  rocksdb::CompressionType compression = rocksdb::kNoCompression;
  uint32_t format_version = 5;
  rocksdb::ChecksumType checksum = rocksdb::kCRC32c;
  rocksdb::BlockBasedTableOptions::IndexType index = rocksdb::BlockBasedTableOptions::kBinarySearch;
  bool dictionary = false;
  bool bloom = false;
  bool data_block_hash = false;
  bool range_delete = false;
  int keys = 60;
};

void Sst(const fs::path& out, const fs::path& scratch, const SstCase& c) {
  rocksdb::Options options;
  options.compression = c.compression;
  rocksdb::BlockBasedTableOptions table;
  table.format_version = c.format_version;
  table.checksum = c.checksum;
  table.index_type = c.index;
  table.block_size = 256;           // several data blocks in a few KiB
  table.metadata_block_size = 128;  // several index partitions
  if (c.bloom) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.partition_filters = c.index == rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  if (c.data_block_hash) {
    table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  }
  if (c.index == rocksdb::BlockBasedTableOptions::kHashSearch) {
    options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(6));
  }
  if (c.dictionary) {
    options.compression_opts.max_dict_bytes = 1024;
    options.compression_opts.enabled = true;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  const fs::path path = scratch / (c.name + ".sst");
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  rocksdb::Status s = writer.Open(path.string());
  for (int i = 0; s.ok() && i < c.keys; ++i) {
    char key[32];
    std::snprintf(key, sizeof(key), "key%05d", i * 7);
    s = writer.Put(key, SemiCompressible(40 + i % 50, static_cast<uint64_t>(i)));
  }
  if (s.ok() && c.range_delete) s = writer.DeleteRange("key~00000", "key~99999");
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) {
    std::fprintf(stderr, "sst %s: %s\n", c.name.c_str(), s.ToString().c_str());
    std::exit(1);
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Write(out / "sst_reader", c.name + ".sst", bytes);
}

void Ssts(const fs::path& out) {
  const fs::path scratch = fs::temp_directory_path() / "rockpool_seed_ssts";
  fs::create_directories(scratch);
  using BT = rocksdb::BlockBasedTableOptions;
  std::vector<SstCase> cases;
  auto add = [&](SstCase c) { cases.push_back(std::move(c)); };
  add({.name = "none-fv5-crc32c"});
  add({.name = "zstd-fv5-crc32c", .compression = rocksdb::kZSTD});
  add({.name = "zlib-fv5-crc32c", .compression = rocksdb::kZlibCompression});
  add({.name = "zstd-dict", .compression = rocksdb::kZSTD, .dictionary = true, .keys = 120});
  add({.name = "zlib-dict",
       .compression = rocksdb::kZlibCompression,
       .dictionary = true,
       .keys = 120});
  add({.name = "zstd-fv2-xxhash",
       .compression = rocksdb::kZSTD,
       .format_version = 2,
       .checksum = rocksdb::kxxHash});
  add({.name = "zstd-fv3-xxhash64",
       .compression = rocksdb::kZSTD,
       .format_version = 3,
       .checksum = rocksdb::kxxHash64});
  add({.name = "zlib-fv4-xxh3",
       .compression = rocksdb::kZlibCompression,
       .format_version = 4,
       .checksum = rocksdb::kXXH3});
  add({.name = "lz4-fv5-crc32c", .compression = rocksdb::kLZ4Compression});
  add({.name = "lz4hc-dict",
       .compression = rocksdb::kLZ4HCCompression,
       .dictionary = true,
       .keys = 120});
  add({.name = "none-fv5-nochecksum", .checksum = rocksdb::kNoChecksum});
  add({.name = "zstd-partitioned",
       .compression = rocksdb::kZSTD,
       .index = BT::kTwoLevelIndexSearch,
       .bloom = true});
  add({.name = "none-partitioned-fv3", .format_version = 3, .index = BT::kTwoLevelIndexSearch});
  add({.name = "zstd-hash-index", .compression = rocksdb::kZSTD, .index = BT::kHashSearch});
  add({.name = "zlib-first-key",
       .compression = rocksdb::kZlibCompression,
       .index = BT::kBinarySearchWithFirstKey});
  add({.name = "none-bloom-datahash", .bloom = true, .data_block_hash = true});
  add({.name = "zstd-range-del", .compression = rocksdb::kZSTD, .range_delete = true, .keys = 20});
  add({.name = "none-one-key", .keys = 1});
  for (const SstCase& c : cases) Sst(out, scratch, c);
  fs::remove_all(scratch);
}

void OptionStrings(const fs::path& out) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"all", "enabled=true;max_idle_per_key=8;idle_seconds=60;measure_stock=false"},
      {"braces", "{enabled=false; max_idle_per_key = 0}"},
      {"bools", "enabled=1;measure_stock=0"},
      {"limits", "max_idle_per_key=65536;idle_seconds=315360000"},
      {"overflow", "idle_seconds=18446744073709551616"},
      {"twice", "enabled=true;enabled=false"},
      {"unknown", "id=rockpool;color=blue"},
      {"empty-items", ";;enabled=true;;"},
      {"lines", "enabled=true\nmax_idle_per_key=4\nidle_seconds=0\n"},
      {"no-equals", "enabled"},
  };
  for (const auto& [name, text] : seeds) Write(out / "options_parser", name, text);
}

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out = argv[1];
  rockpool::CompressionPools pools;
  rockpool::BlockCodecs codecs(&pools);
  auto dict = rockpool::ZstdDictionary::Create(rockpool::fuzz::SeedDictionary(), 3);
  rockpool::Check(dict.status(), "dictionary");
  rockpool::Blocks(out, codecs, **dict);
  rockpool::Ssts(out);
  rockpool::OptionStrings(out);
  std::printf("seed corpus written to %s\n", out.c_str());
  return 0;
}
