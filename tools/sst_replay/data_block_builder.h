// Re-blocking for `--block_size`: builds data blocks in RocksDB's format
// (table/block_based/block_builder.cc: prefix-compressed entries, a restart
// point every 16 entries, restart array, fixed32 footer) and decides when a
// block is full exactly like FlushBlockBySizePolicy with RocksDB's default
// block_size_deviation of 10.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_DATA_BLOCK_BUILDER_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_DATA_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rockpool::replay {

class DataBlockBuilder {
 public:
  explicit DataBlockBuilder(size_t block_size, int restart_interval = 16,
                            int block_size_deviation = 10);

  // True if the block should be cut before adding (key, value).
  bool IsFull(std::string_view key, std::string_view value) const;
  void Add(std::string_view key, std::string_view value);
  bool empty() const { return counter_total_ == 0; }
  // Finishes the block; the view is valid until Reset().
  std::string_view Finish();
  void Reset();

 private:
  size_t CurrentSizeEstimate() const;
  size_t EstimateSizeAfterKV(std::string_view key, std::string_view value) const;

  size_t block_size_;
  size_t deviation_limit_;
  int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  std::string last_key_;
  int counter_ = 0;           // entries since the last restart
  size_t counter_total_ = 0;  // entries in the block
  bool finished_ = false;
};

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_DATA_BLOCK_BUILDER_H_
