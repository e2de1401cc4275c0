#include "tools/sst/index_block.h"

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tools/sst/block_iterator.h"

namespace rockpool::sst {
namespace {

absl::Status BadValue(size_t at, std::string_view what) {
  return absl::DataLossError(absl::StrFormat("bad index entry at block offset %d: %s", at, what));
}

// Applies a size delta to the previous handle (IndexValue::DecodeFrom).
bool ApplyDelta(const BlockHandle& prev, int64_t delta, BlockHandle* out) {
  uint64_t next_offset = 0;
  if (!BlockEndWithTrailer(prev, &next_offset)) return false;
  if (delta < 0) {
    const uint64_t minus = uint64_t{0} - static_cast<uint64_t>(delta);
    if (minus > prev.size) return false;
    out->size = prev.size - minus;
  } else {
    const uint64_t plus = static_cast<uint64_t>(delta);
    if (plus > ~uint64_t{0} - prev.size) return false;
    out->size = prev.size + plus;
  }
  out->offset = next_offset;
  return true;
}

}  // namespace

std::string_view IndexTypeName(IndexType type) {
  switch (type) {
    case IndexType::kBinarySearch:
      return "binary_search";
    case IndexType::kHashSearch:
      return "hash_search";
    case IndexType::kTwoLevelIndexSearch:
      return "two_level_index_search";
    case IndexType::kBinarySearchWithFirstKey:
      return "binary_search_with_first_key";
  }
  return "unknown";
}

absl::Status ForEachIndexEntry(std::string_view block, const IndexBlockFormat& format,
                               absl::FunctionRef<absl::Status(const IndexEntryView&)> fn) {
  BlockIteratorOptions options;
  options.value_encoding =
      format.value_delta_encoded ? ValueEncoding::kIndexHandle : ValueEncoding::kLengthPrefixed;
  options.index_has_first_key = format.has_first_key;
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block, options);
  if (!it.ok()) return it.status();
  std::optional<BlockHandle> prev;
  while (it->Next()) {
    std::string_view value = it->value();
    IndexEntryView entry;
    entry.key = it->key();
    if (it->value_is_delta()) {
      int64_t delta = 0;
      if (!GetVarsignedint64(&value, &delta)) {
        return BadValue(it->entry_offset(), "malformed size delta");
      }
      if (!prev.has_value()) {
        return BadValue(it->entry_offset(), "size delta without a previous handle");
      }
      if (!ApplyDelta(*prev, delta, &entry.handle)) {
        return BadValue(it->entry_offset(), "size delta overflows");
      }
    } else if (!DecodeBlockHandle(&value, &entry.handle)) {
      return BadValue(it->entry_offset(), "malformed block handle");
    }
    if (format.has_first_key && !GetLengthPrefixed(&value, &entry.first_internal_key)) {
      return BadValue(it->entry_offset(), "malformed first key");
    }
    prev = entry.handle;
    absl::Status s = fn(entry);
    if (!s.ok()) return s;
  }
  return it->status();
}

}  // namespace rockpool::sst
