// A small writer of block-based tables for tests, independent of RocksDB:
// it produces the layouts RocksDB 7.8.3 cannot write (format_version 6/7
// footers with context checksums, separated key/value data blocks) and
// controllable corner cases. Its blocks come from sst::DataBlockBuilder
// (tools/sst/data_block_builder.h), the builder sst_replay re-blocks with.
// For format_version <= 5 its output is checked against RocksDB's own reader
// (sst_file_synthetic_test.cc), which keeps it honest.
#ifndef ROCKPOOL_TESTS_TOOLS_SST_SYNTHETIC_SST_H_
#define ROCKPOOL_TESTS_TOOLS_SST_SYNTHETIC_SST_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/sst/checksum.h"
#include "tools/sst/index_block.h"

namespace rockpool::sst_testing {

// `block`, finished by sst::DataBlockBuilder, with a data block hash index
// of `buckets` buckets spliced in, all empty (none: `block` unchanged). The
// reader must find and skip it; RocksDB would take every key as absent, so
// it exists for tests only.
std::string WithEmptyHashIndex(std::string_view block, uint16_t buckets);

// Compresses a block payload; returns {type byte, stored payload}.
using TestCompressor =
    std::function<std::pair<uint8_t, std::string>(std::string_view contents, bool is_data_block)>;

struct SyntheticSstOptions {
  uint32_t format_version = 6;
  bool legacy_magic = false;  // format_version 0 footer
  sst::ChecksumType checksum = sst::ChecksumType::kCRC32c;
  uint32_t base_context_checksum = 0x5eed1234;  // format_version >= 6 only
  sst::IndexType index_type = sst::IndexType::kBinarySearch;
  bool index_value_delta_encoded = true;  // honoured for format_version >= 4
  int index_restart_interval = 1;
  int data_restart_interval = 4;
  size_t entries_per_block = 8;
  size_t blocks_per_partition = 3;  // kTwoLevelIndexSearch
  bool separated_kv = false;
  uint16_t data_hash_buckets = 0;
  std::string compression_dict;  // written as "rocksdb.compression_dict"
  TestCompressor compressor;     // null: no compression
};

struct SyntheticSst {
  std::string bytes;
  std::vector<sst::BlockHandle> data_blocks;
  std::vector<sst::BlockHandle> index_partitions;
  sst::BlockHandle index;
  sst::BlockHandle properties;
  sst::BlockHandle metaindex;
};

// `kvs` are internal keys (user key + 8-byte footer), sorted, with values.
SyntheticSst BuildSyntheticSst(const std::vector<std::pair<std::string, std::string>>& kvs,
                               const SyntheticSstOptions& options);

// user_key + fixed64(seq << 8 | type).
std::string MakeInternalKey(std::string_view user_key, uint64_t seq, uint8_t type = 1);

}  // namespace rockpool::sst_testing

#endif  // ROCKPOOL_TESTS_TOOLS_SST_SYNTHETIC_SST_H_
