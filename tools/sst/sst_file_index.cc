// SstFile: walking the index to the data block handles.
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"
#include "tools/sst/errors.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst {

absl::Status SstFile::CheckInFileOrder(const BlockHandle& handle, uint64_t* min_offset,
                                       std::string_view what) const {
  uint64_t end = 0;
  if (handle.offset < *min_offset || !BlockEndWithTrailer(handle, &end) ||
      end > footer_.footer_offset) {
    return CorruptionError(name_, handle.offset,
                           absl::StrFormat("%s handle %s is out of file order or past the "
                                           "footer (expected at or after %d)",
                                           what, handle.ToString(), *min_offset));
  }
  *min_offset = end;
  return absl::OkStatus();
}

absl::Status SstFile::CollectHandles(const BlockHandle& block_handle,
                                     const IndexBlockFormat& format, uint64_t* min_offset,
                                     std::vector<BlockHandle>* out) const {
  absl::StatusOr<std::string> block = ReadBlockContents(block_handle, BlockKind::kIndex);
  if (!block.ok()) return block.status();
  std::optional<absl::Status> order_error;
  absl::Status s = ForEachIndexEntry(*block, format, [&](const IndexEntryView& e) {
    absl::Status order = CheckInFileOrder(e.handle, min_offset, "data block");
    if (!order.ok()) {
      order_error = order;
      return order;
    }
    out->push_back(e.handle);
    return absl::OkStatus();
  });
  if (order_error.has_value()) return *order_error;
  return WithContext(s, name_, block_handle.offset);
}

absl::StatusOr<std::vector<BlockHandle>> SstFile::IndexPartitionHandles() const {
  std::vector<BlockHandle> partitions;
  if (index_type_ != IndexType::kTwoLevelIndexSearch) return partitions;
  IndexBlockFormat top = index_format_;
  top.has_first_key = false;
  absl::StatusOr<std::string> block = ReadBlockContents(index_handle_, BlockKind::kIndex);
  if (!block.ok()) return block.status();
  uint64_t min_offset = 0;
  std::optional<absl::Status> order_error;
  absl::Status s = ForEachIndexEntry(*block, top, [&](const IndexEntryView& e) {
    absl::Status order = CheckInFileOrder(e.handle, &min_offset, "index partition");
    if (!order.ok()) {
      order_error = order;
      return order;
    }
    partitions.push_back(e.handle);
    return absl::OkStatus();
  });
  if (order_error.has_value()) return *order_error;
  if (!s.ok()) return WithContext(s, name_, index_handle_.offset);
  return partitions;
}

absl::StatusOr<std::vector<BlockHandle>> SstFile::DataBlockHandles() const {
  std::vector<BlockHandle> handles;
  uint64_t min_offset = 0;
  if (index_type_ != IndexType::kTwoLevelIndexSearch) {
    absl::Status s = CollectHandles(index_handle_, index_format_, &min_offset, &handles);
    if (!s.ok()) return s;
    return handles;
  }
  absl::StatusOr<std::vector<BlockHandle>> partitions = IndexPartitionHandles();
  if (!partitions.ok()) return partitions.status();
  for (const BlockHandle& partition : *partitions) {
    absl::Status s = CollectHandles(partition, index_format_, &min_offset, &handles);
    if (!s.ok()) return s;
  }
  return handles;
}

}  // namespace rockpool::sst
