// Builds blocks in RocksDB's block format (block_builder.cc; the layout is
// described in block_layout.h): prefix-compressed entries, a restart point
// every `restart_interval` entries, restart array, packed fixed32 footer.
// sst_replay re-blocks with it for `--block_size`, deciding when a block is
// full exactly like FlushBlockBySizePolicy with RocksDB's default
// block_size_deviation of 10; the tests' synthetic SSTs build their data,
// index and meta blocks with it.
#ifndef ROCKPOOL_TOOLS_SST_DATA_BLOCK_BUILDER_H_
#define ROCKPOOL_TOOLS_SST_DATA_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rockpool::sst {

// How a block lays out its entries; the defaults are a data block's.
struct BlockEntryLayout {
  int restart_interval = 16;
  // Index blocks of format_version >= 4: no value lengths, and an entry that
  // shares a key prefix stores Add's `delta_value` instead of its value.
  bool value_delta_encoding = false;
  // RocksDB 11.x separated key/value storage: values in a section of their
  // own after the keys, each restart entry naming its value's offset there.
  bool separated_kv = false;
};

class DataBlockBuilder {
 public:
  // `block_size` and `block_size_deviation` serve IsFull only; a caller that
  // cuts blocks itself passes block_size 0 and never asks.
  explicit DataBlockBuilder(size_t block_size, BlockEntryLayout layout = {},
                            int block_size_deviation = 10);

  // True if the block should be cut before adding (key, value). The size
  // estimate is RocksDB's for the default layout.
  bool IsFull(std::string_view key, std::string_view value) const;
  // Keys in the block's order; `delta_value` is read with value delta
  // encoding only.
  void Add(std::string_view key, std::string_view value, std::string_view delta_value = {});
  bool empty() const { return counter_total_ == 0; }
  // Finishes the block; the view is valid until Reset().
  std::string_view Finish();
  void Reset();

 private:
  size_t CurrentSizeEstimate() const;
  size_t EstimateSizeAfterKV(std::string_view key, std::string_view value) const;

  size_t block_size_;
  size_t deviation_limit_;
  BlockEntryLayout layout_;
  std::string buffer_;
  std::string values_;  // separated_kv only
  std::vector<uint32_t> restarts_;
  std::string last_key_;
  int counter_ = 0;           // entries since the last restart
  size_t counter_total_ = 0;  // entries in the block
  bool finished_ = false;
};

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_DATA_BLOCK_BUILDER_H_
