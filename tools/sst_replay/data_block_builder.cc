#include "tools/sst_replay/data_block_builder.h"

#include <algorithm>

#include "compression/coding.h"

namespace rockpool::replay {
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

DataBlockBuilder::DataBlockBuilder(size_t block_size, int restart_interval,
                                   int block_size_deviation)
    : block_size_(block_size),
      deviation_limit_(((block_size * (100 - block_size_deviation)) + 99) / 100),
      restart_interval_(restart_interval) {
  Reset();
}

void DataBlockBuilder::Reset() {
  buffer_.clear();
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
  if (counter_ >= restart_interval_) estimate += sizeof(uint32_t);
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

void DataBlockBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (counter_ >= restart_interval_) {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  } else {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  }
  const size_t non_shared = key.size() - shared;
  rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  rockpool::PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
  ++counter_total_;
}

std::string_view DataBlockBuilder::Finish() {
  if (!finished_) {
    for (uint32_t r : restarts_) rockpool::PutFixed32(&buffer_, r);
    rockpool::PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return buffer_;
}

}  // namespace rockpool::replay
