#include "tools/sst/metaindex.h"

#include <iterator>

#include "absl/strings/str_format.h"
#include "tools/sst/block_iterator.h"

namespace rockpool::sst {

absl::StatusOr<Metaindex> ParseMetaindex(std::string_view block) {
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block);
  if (!it.ok()) return it.status();
  Metaindex result;
  size_t copied = 0;  // see TableProperties::Parse
  while (it->Next()) {
    copied += it->key().size();
    if (copied > block.size()) {
      return absl::DataLossError("metaindex block expands beyond its size");
    }
    std::string_view value = it->value();
    BlockHandle handle;
    if (!DecodeBlockHandle(&value, &handle)) {
      return absl::DataLossError(
          absl::StrFormat("metaindex entry \"%s\" has a malformed block handle", it->key()));
    }
    auto [pos, inserted] = result.emplace(std::string(it->key()), handle);
    if (!inserted || std::next(pos) != result.end()) {
      return absl::DataLossError(
          absl::StrFormat("metaindex unsorted or duplicate at \"%s\"", it->key()));
    }
  }
  if (!it->status().ok()) return it->status();
  return result;
}

}  // namespace rockpool::sst
