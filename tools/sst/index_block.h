// Index blocks (table/block_based/index_builder.cc, format.cc IndexValue):
// each entry maps a separator key to the handle of a data block (or, in the
// top level of a partitioned index, of an index partition).
//
// Value formats:
//   not delta encoded: varint32 length, then BlockHandle [+ first key]
//   delta encoded (format_version >= 4): no length; entries whose key shares
//     no bytes with the previous key (restart points) hold a full
//     BlockHandle, the others a signed varint64 `size - previous size`, with
//     offset = previous offset + previous size + 5 (blocks are contiguous).
//   kBinarySearchWithFirstKey appends the block's first internal key
//     (varint32 length-prefixed) to either form.
#ifndef ROCKPOOL_TOOLS_SST_INDEX_BLOCK_H_
#define ROCKPOOL_TOOLS_SST_INDEX_BLOCK_H_

#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "tools/sst/block_handle.h"

namespace rockpool::sst {

// BlockBasedTableOptions::IndexType, stored as a fixed32 in the table
// property "rocksdb.block.based.table.index.type".
enum class IndexType : uint32_t {
  kBinarySearch = 0,
  kHashSearch = 1,  // a binary-search index block plus prefix meta blocks
  kTwoLevelIndexSearch = 2,
  kBinarySearchWithFirstKey = 3,
};
std::string_view IndexTypeName(IndexType type);

struct IndexBlockFormat {
  bool value_delta_encoded = false;  // "rocksdb.index.value.is.delta.encoded"
  bool has_first_key = false;        // kBinarySearchWithFirstKey
};

struct IndexEntryView {
  std::string_view key;  // separator: internal key, or user key when
                         // "rocksdb.index.key.is.user.key" = 1
  BlockHandle handle;
  std::string_view first_internal_key;  // empty unless has_first_key
};

// Calls `fn` for each entry of the uncompressed index `block`, in order.
// Views are valid during the call only. Returns the first non-OK status of
// `fn`, or DataLoss (without file context) for a malformed block.
absl::Status ForEachIndexEntry(std::string_view block, const IndexBlockFormat& format,
                               absl::FunctionRef<absl::Status(const IndexEntryView&)> fn);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_INDEX_BLOCK_H_
