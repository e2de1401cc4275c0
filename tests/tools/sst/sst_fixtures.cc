#include "tests/tools/sst/sst_fixtures.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compression/block_codecs.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/rocksdb_calls.h"

namespace rockpool::sst_testing {
namespace {

absl::Status ToAbsl(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return absl::OkStatus();
  return absl::InternalError(what + ": " + s.ToString());
}

std::string CompressionName(rocksdb::CompressionType c) {
  switch (c) {
    case rocksdb::kNoCompression:
      return "none";
    case rocksdb::kZSTD:
      return "zstd";
    case rocksdb::kZlibCompression:
      return "zlib";
    case rocksdb::kSnappyCompression:
      return "snappy";
    case rocksdb::kLZ4Compression:
      return "lz4";
    default:
      return absl::StrCat("c", static_cast<int>(c));
  }
}

std::string ChecksumName(rocksdb::ChecksumType c) {
  switch (c) {
    case rocksdb::kNoChecksum:
      return "nochecksum";
    case rocksdb::kCRC32c:
      return "crc32c";
    case rocksdb::kxxHash:
      return "xxhash";
    case rocksdb::kxxHash64:
      return "xxhash64";
    case rocksdb::kXXH3:
      return "xxh3";
  }
  return "checksum";
}

std::string IndexName(rocksdb::BlockBasedTableOptions::IndexType t) {
  switch (t) {
    case rocksdb::BlockBasedTableOptions::kBinarySearch:
      return "binary";
    case rocksdb::BlockBasedTableOptions::kHashSearch:
      return "hash";
    case rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch:
      return "partitioned";
    case rocksdb::BlockBasedTableOptions::kBinarySearchWithFirstKey:
      return "firstkey";
  }
  return "index";
}

}  // namespace

std::string SstFixtureOptions::Name() const {
  std::string name = absl::StrCat(CompressionName(compression), "_fv", format_version, "_",
                                  ChecksumName(checksum), "_", IndexName(index_type));
  if (index_block_restart_interval != 1) {
    absl::StrAppend(&name, "_irestart", index_block_restart_interval);
  }
  if (max_dict_bytes > 0) absl::StrAppend(&name, "_dict");
  if (data_block_hash_index) absl::StrAppend(&name, "_datahash");
  return name;
}

void PrintTo(const SstFixtureOptions& options, std::ostream* os) { *os << options.Name(); }

KeyValues MakeKeyValues(size_t num_keys, size_t value_size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> words;
  for (int i = 0; i < 64; ++i) {
    std::string w;
    const size_t len = 3 + rng() % 6;
    for (size_t j = 0; j < len; ++j) w.push_back(static_cast<char>('a' + rng() % 26));
    words.push_back(w);
  }
  KeyValues kvs;
  kvs.reserve(num_keys);
  for (size_t i = 0; i < num_keys; ++i) {
    std::string key = absl::StrFormat("key%010d-%s", i, words[rng() % words.size()]);
    std::string value;
    while (value.size() < value_size) {
      absl::StrAppend(&value, words[rng() % words.size()], " ");
    }
    value.resize(value_size);
    kvs.emplace_back(std::move(key), std::move(value));
  }
  return kvs;
}

rocksdb::Options MakeRocksDbOptions(const SstFixtureOptions& o) {
  rocksdb::Options options;
  options.compression = o.compression;
  options.compression_opts.max_dict_bytes = o.max_dict_bytes;
  options.compression_opts.zstd_max_train_bytes = o.zstd_max_train_bytes;
  rocksdb::BlockBasedTableOptions table;
  table.format_version = o.format_version;
  table.checksum = o.checksum;
  table.index_type = o.index_type;
  table.index_block_restart_interval = o.index_block_restart_interval;
  table.metadata_block_size = o.metadata_block_size;
  table.partition_filters = false;
  table.block_size = o.block_size;
  table.enable_index_compression = o.enable_index_compression;
  if (o.data_block_hash_index) {
    table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  }
  if (o.index_type == rocksdb::BlockBasedTableOptions::kHashSearch) {
    options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(6));
  }
  if (o.customize) o.customize(&options, &table);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

absl::StatusOr<SstFixture> WriteSstFile(const SstFixtureOptions& o, const std::string& path) {
  SstFixture fixture;
  fixture.path = path;
  fixture.kvs = MakeKeyValues(o.num_keys, o.value_size, o.seed);
  rocksdb::Options options = MakeRocksDbOptions(o);
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  absl::Status s = ToAbsl(writer.Open(path), "SstFileWriter::Open " + path);
  for (size_t i = 0; s.ok() && i < fixture.kvs.size(); ++i) {
    s = ToAbsl(writer.Put(fixture.kvs[i].first, fixture.kvs[i].second), "Put");
  }
  if (s.ok()) s = ToAbsl(writer.Finish(), "SstFileWriter::Finish " + path);
  if (!s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const rocksdb::TableProperties>> props =
      ReadRocksDbTableProperties(path);
  if (!props.ok()) return props.status();
  fixture.num_data_blocks = (*props)->num_data_blocks;
  return fixture;
}

absl::StatusOr<SstFixture> WriteSstByFlush(const SstFixtureOptions& o, const std::string& db_dir) {
  SstFixture fixture;
  fixture.kvs = MakeKeyValues(o.num_keys, o.value_size, o.seed);
  rocksdb::Options options = MakeRocksDbOptions(o);
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 256 << 20;  // one flush, one file
  std::unique_ptr<rocksdb::DB> db;
  absl::Status s = ToAbsl(sst::OpenDb(options, db_dir, &db), "DB::Open " + db_dir);
  if (!s.ok()) return s;
  for (size_t i = 0; s.ok() && i < fixture.kvs.size(); ++i) {
    s = ToAbsl(db->Put(rocksdb::WriteOptions(), fixture.kvs[i].first, fixture.kvs[i].second),
               "DB::Put");
  }
  if (s.ok()) s = ToAbsl(db->Flush(rocksdb::FlushOptions()), "DB::Flush");
  std::vector<rocksdb::LiveFileMetaData> files;
  if (s.ok()) db->GetLiveFilesMetaData(&files);
  if (s.ok()) s = ToAbsl(db->Close(), "DB::Close");
  if (!s.ok()) return s;
  if (files.size() != 1) {
    return absl::InternalError(absl::StrCat("expected one SST after flush, got ", files.size()));
  }
  std::string name = files[0].name;
  if (!name.empty() && name[0] == '/') name.erase(0, 1);
  fixture.path = (std::filesystem::path(files[0].db_path) / name).string();
  absl::StatusOr<std::shared_ptr<const rocksdb::TableProperties>> props =
      ReadRocksDbTableProperties(fixture.path);
  if (!props.ok()) return props.status();
  fixture.num_data_blocks = (*props)->num_data_blocks;
  return fixture;
}

absl::StatusOr<std::shared_ptr<const rocksdb::TableProperties>> ReadRocksDbTableProperties(
    const std::string& path) {
  rocksdb::Options options;
  rocksdb::SstFileReader reader(options);
  absl::Status s = ToAbsl(reader.Open(path), "SstFileReader::Open " + path);
  if (!s.ok()) return s;
  return reader.GetTableProperties();
}

sst::BlockDecompressor TestDecompressor() {
  // Process-lifetime pools and codecs (reachable, so not a leak).
  static CompressionPools* pools = new CompressionPools();
  static BlockCodecs* codecs = new BlockCodecs(pools);
  return sst::MakeBlockCodecsDecompressor(codecs);
}

sst::SstReadOptions TestReadOptions() {
  sst::SstReadOptions options;
  options.decompressor = TestDecompressor();
  return options;
}

absl::StatusOr<KeyValues> ReadAllDataEntries(const sst::SstFile& file) {
  absl::StatusOr<std::vector<sst::BlockHandle>> handles = file.DataBlockHandles();
  if (!handles.ok()) return handles.status();
  KeyValues out;
  for (const sst::BlockHandle& h : *handles) {
    absl::StatusOr<std::string> contents = file.ReadBlockContents(h, sst::BlockKind::kData);
    if (!contents.ok()) return contents.status();
    absl::StatusOr<sst::BlockIterator> it = sst::BlockIterator::Create(*contents);
    if (!it.ok()) return it.status();
    while (it->Next()) out.emplace_back(std::string(it->key()), std::string(it->value()));
    if (!it->status().ok()) return it->status();
  }
  return out;
}

std::string TestTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr && base[0] != '\0' ? base : "/tmp", "/rockpool_sst_XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  return pattern;
}

}  // namespace rockpool::sst_testing
