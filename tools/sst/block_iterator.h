// Forward iterator over the entries of one uncompressed block
// (table/block_based/block_builder.cc format):
//
//   entry := varint32 shared | varint32 non_shared | [varint32 value_length]
//            | [varint32 value_offset] | key bytes[non_shared] | [value]
//
// The key is the previous key's first `shared` bytes plus the `non_shared`
// bytes. value_length is absent in format_version >= 4 index blocks whose
// values are delta encoded (see ValueEncoding::kIndexHandle). With separated
// key/value storage (11.x opt-in) values sit in their own section and entries
// at restart points carry value_offset. Data block hash indexes are skipped.
//
// Works for data, index, metaindex and properties blocks. Never reads outside
// the block; corruption ends iteration with a DataLoss status().
#ifndef ROCKPOOL_TOOLS_SST_BLOCK_ITERATOR_H_
#define ROCKPOOL_TOOLS_SST_BLOCK_ITERATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/sst/block_layout.h"

namespace rockpool::sst {

enum class ValueEncoding {
  // Every entry stores its value length: data, metaindex and properties
  // blocks, and index blocks without value delta encoding.
  kLengthPrefixed,
  // Index blocks with "rocksdb.index.value.is.delta.encoded" = 1: no value
  // length. The value is a full BlockHandle when the entry's key shares no
  // bytes with the previous key, else a signed varint64 size delta; either
  // way followed by a length-prefixed first key when the index type is
  // kBinarySearchWithFirstKey.
  kIndexHandle,
};

struct BlockIteratorOptions {
  ValueEncoding value_encoding = ValueEncoding::kLengthPrefixed;
  bool index_has_first_key = false;  // only read with kIndexHandle
};

class BlockIterator {
 public:
  // `block` (uncompressed, no trailer) must outlive the iterator. Fails if the
  // block footer is malformed. The iterator starts before the first entry.
  static absl::StatusOr<BlockIterator> Create(std::string_view block,
                                              BlockIteratorOptions options = {});

  // Moves to the next entry; false at the end or on corruption (check
  // status()). key() and value() are valid until the next call.
  bool Next();

  std::string_view key() const { return key_; }
  // A view into the block.
  std::string_view value() const { return value_; }
  // kIndexHandle only: the value is a size delta, not a full handle.
  bool value_is_delta() const { return value_is_delta_; }
  // Offsets within the block of the current entry and of its value.
  size_t entry_offset() const { return entry_offset_; }
  size_t value_offset() const { return static_cast<size_t>(value_.data() - block_.data()); }
  const absl::Status& status() const { return status_; }
  const BlockLayout& layout() const { return layout_; }

 private:
  BlockIterator(std::string_view block, BlockLayout layout, BlockIteratorOptions options);
  bool Fail(size_t at, std::string_view what);
  bool DecodeValue(std::string_view* rest, uint32_t value_length, bool at_restart,
                   uint32_t value_offset);

  std::string_view block_;
  BlockLayout layout_;
  BlockIteratorOptions options_;
  size_t next_offset_ = 0;
  size_t entry_offset_ = 0;
  uint32_t next_restart_ = 0;     // separated KV: next restart to match
  size_t next_value_offset_ = 0;  // separated KV: end of the last value
  bool done_ = false;
  bool value_is_delta_ = false;
  std::string key_;
  std::string_view value_;
  absl::Status status_;
};

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_BLOCK_ITERATOR_H_
