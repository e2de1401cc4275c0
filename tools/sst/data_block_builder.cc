#include "tools/sst/data_block_builder.h"

#include <algorithm>

#include "compression/coding.h"
#include "tools/sst/block_layout.h"

namespace rockpool::sst {
namespace {

size_t VarintLength(uint64_t v) {
  size_t len = 1;
  while (v >= 128) {
    v >>= 7;
    ++len;
  }
  return len;
}

}  // namespace

DataBlockBuilder::DataBlockBuilder(size_t block_size, BlockEntryLayout layout,
                                   int block_size_deviation)
    : block_size_(block_size),
      deviation_limit_(((block_size * (100 - block_size_deviation)) + 99) / 100),
      layout_(layout) {
  Reset();
}

void DataBlockBuilder::Reset() {
  buffer_.clear();
  values_.clear();
  restarts_.assign(1, 0);
  last_key_.clear();
  counter_ = 0;
  counter_total_ = 0;
  finished_ = false;
}

size_t DataBlockBuilder::CurrentSizeEstimate() const {
  return buffer_.size() + restarts_.size() * sizeof(uint32_t) + sizeof(uint32_t);
}

size_t DataBlockBuilder::EstimateSizeAfterKV(std::string_view key, std::string_view value) const {
  size_t estimate = CurrentSizeEstimate() + key.size() + value.size();
  if (counter_ >= layout_.restart_interval) estimate += sizeof(uint32_t);
  estimate += sizeof(int32_t);  // shared prefix length varint
  estimate += VarintLength(key.size());
  estimate += VarintLength(value.size());
  return estimate;
}

bool DataBlockBuilder::IsFull(std::string_view key, std::string_view value) const {
  if (empty()) return false;
  const size_t current = CurrentSizeEstimate();
  if (current >= block_size_) return true;
  return EstimateSizeAfterKV(key, value) > block_size_ && current > deviation_limit_;
}

void DataBlockBuilder::Add(std::string_view key, std::string_view value,
                           std::string_view delta_value) {
  size_t shared = 0;
  if (counter_ >= layout_.restart_interval) {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  } else {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  }
  const size_t non_shared = key.size() - shared;
  rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  if (!layout_.value_delta_encoding) {
    rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  }
  if (layout_.separated_kv && counter_ == 0) {
    rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(values_.size()));
  }
  buffer_.append(key.data() + shared, non_shared);
  // An entry that shares no prefix is read as a restart: it keeps its value.
  const std::string_view stored = layout_.value_delta_encoding && shared != 0 ? delta_value : value;
  (layout_.separated_kv ? values_ : buffer_).append(stored.data(), stored.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
  ++counter_total_;
}

std::string_view DataBlockBuilder::Finish() {
  if (!finished_) {
    const uint32_t values_offset = static_cast<uint32_t>(buffer_.size());
    uint32_t packed = static_cast<uint32_t>(restarts_.size());
    if (layout_.separated_kv) buffer_.append(values_);
    for (uint32_t r : restarts_) rockpool::PutFixed32(&buffer_, r);
    if (layout_.separated_kv) {
      rockpool::PutFixed32(&buffer_, values_offset);
      packed |= kSeparatedKVBit;
    }
    rockpool::PutFixed32(&buffer_, packed);
    finished_ = true;
  }
  return buffer_;
}

}  // namespace rockpool::sst
