// A small, independent writer of block-based tables for tests: it produces
// the layouts RocksDB 7.8.3 cannot write (format_version 6/7 footers with
// context checksums, separated key/value data blocks) and controllable
// corner cases. For format_version <= 5 its output is checked against
// RocksDB's own reader (synthetic_sst_test.cc), which keeps it honest.
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

// Mirrors RocksDB's BlockBuilder (block_builder.cc).
class TestBlockBuilder {
 public:
  explicit TestBlockBuilder(int restart_interval, bool value_delta_encoding = false,
                            bool separated_kv = false);
  // `delta_value` is used instead of `value` for non-restart entries when
  // value delta encoding is on.
  void Add(std::string_view key, std::string_view value, std::string_view delta_value = {});
  // Appends restarts and footer. `hash_buckets` > 0 adds a (dummy) data
  // block hash index of that many buckets.
  std::string Finish(uint16_t hash_buckets = 0);
  bool empty() const { return count_ == 0; }

 private:
  int restart_interval_;
  bool value_delta_encoding_;
  bool separated_kv_;
  std::string buffer_;
  std::string values_;
  std::vector<uint32_t> restarts_{0};
  int counter_ = 0;
  size_t count_ = 0;
  std::string last_key_;
};

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
