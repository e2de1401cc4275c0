#include "tools/sst/block_iterator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tools/sst/block_handle.h"

namespace rockpool::sst {

absl::StatusOr<BlockIterator> BlockIterator::Create(std::string_view block,
                                                    BlockIteratorOptions options) {
  absl::StatusOr<BlockLayout> layout = ParseBlockLayout(block);
  if (!layout.ok()) return layout.status();
  if (layout->separated_kv && options.value_encoding != ValueEncoding::kLengthPrefixed) {
    return absl::DataLossError("separated key/value storage in a delta-encoded index block");
  }
  return BlockIterator(block, *layout, options);
}

BlockIterator::BlockIterator(std::string_view block, BlockLayout layout,
                             BlockIteratorOptions options)
    : block_(block),
      layout_(layout),
      options_(options),
      next_value_offset_(layout.values_offset),
      value_(block.substr(0, 0)) {}

bool BlockIterator::Fail(size_t at, std::string_view what) {
  status_ =
      absl::DataLossError(absl::StrFormat("bad block entry at block offset %d: %s", at, what));
  done_ = true;
  key_.clear();
  value_ = block_.substr(0, 0);
  return false;
}

bool BlockIterator::Next() {
  if (done_) return false;
  const size_t pos = next_offset_;
  if (pos >= layout_.entries_end) {
    done_ = true;
    key_.clear();
    value_ = block_.substr(0, 0);
    return false;
  }
  entry_offset_ = pos;
  std::string_view rest = block_.substr(pos, layout_.entries_end - pos);

  bool at_restart = false;
  if (layout_.separated_kv) {
    while (next_restart_ < layout_.num_restarts &&
           layout_.RestartPoint(block_, next_restart_) < pos) {
      ++next_restart_;
    }
    if (next_restart_ < layout_.num_restarts &&
        layout_.RestartPoint(block_, next_restart_) == pos) {
      at_restart = true;
      ++next_restart_;
    }
  }

  uint32_t shared = 0, non_shared = 0, value_length = 0, value_offset = 0;
  if (!GetVarint32(&rest, &shared) || !GetVarint32(&rest, &non_shared)) {
    return Fail(pos, "truncated key lengths");
  }
  if (options_.value_encoding == ValueEncoding::kLengthPrefixed &&
      !GetVarint32(&rest, &value_length)) {
    return Fail(pos, "truncated value length");
  }
  if (at_restart && !GetVarint32(&rest, &value_offset)) {
    return Fail(pos, "truncated value offset");
  }
  if (shared > key_.size()) {
    return Fail(pos,
                absl::StrCat("shares ", shared, " bytes with a previous key of ", key_.size()));
  }
  if (non_shared > rest.size()) {
    return Fail(pos, absl::StrCat("key of ", non_shared, " bytes overruns the block"));
  }
  key_.resize(shared);
  key_.append(rest.data(), non_shared);
  rest.remove_prefix(non_shared);
  value_is_delta_ = options_.value_encoding == ValueEncoding::kIndexHandle && shared != 0;
  if (!DecodeValue(&rest, value_length, at_restart, value_offset)) return false;
  next_offset_ = layout_.entries_end - rest.size();
  return true;
}

// Sets value_ and consumes in-line value bytes from *rest.
bool BlockIterator::DecodeValue(std::string_view* rest, uint32_t value_length, bool at_restart,
                                uint32_t value_offset) {
  const size_t pos = entry_offset_;
  if (layout_.separated_kv) {
    const size_t start =
        at_restart ? layout_.values_offset + size_t{value_offset} : next_value_offset_;
    if (start > layout_.restarts_offset || value_length > layout_.restarts_offset - start) {
      return Fail(pos, "value overruns the values section");
    }
    value_ = block_.substr(start, value_length);
    next_value_offset_ = start + value_length;
    return true;
  }
  if (options_.value_encoding == ValueEncoding::kLengthPrefixed) {
    if (value_length > rest->size()) {
      return Fail(pos, absl::StrCat("value of ", value_length, " bytes overruns the block"));
    }
    value_ = rest->substr(0, value_length);
    rest->remove_prefix(value_length);
    return true;
  }
  // kIndexHandle: the value delimits itself.
  std::string_view v = *rest;
  bool ok = true;
  if (value_is_delta_) {
    int64_t delta = 0;
    ok = GetVarsignedint64(&v, &delta);
  } else {
    BlockHandle handle;
    ok = DecodeBlockHandle(&v, &handle);
  }
  std::string_view first_key;
  if (ok && options_.index_has_first_key) ok = GetLengthPrefixed(&v, &first_key);
  if (!ok) return Fail(pos, "malformed index value");
  value_ = rest->substr(0, rest->size() - v.size());
  *rest = v;
  return true;
}

}  // namespace rockpool::sst
