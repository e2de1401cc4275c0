#include "tools/sst/properties.h"

#include <iterator>
#include <utility>

#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tools/sst/block_iterator.h"

namespace rockpool::sst {

absl::StatusOr<TableProperties> TableProperties::Parse(std::string_view block) {
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block);
  if (!it.ok()) return it.status();
  TableProperties props;
  // RocksDB writes properties with restart interval 1 (no key sharing), so
  // the copies cannot legitimately exceed the block; this caps what a
  // hostile block with shared prefixes could make us allocate.
  size_t copied = 0;
  while (it->Next()) {
    copied += it->key().size() + it->value().size();
    if (copied > 2 * block.size()) {
      return absl::DataLossError("properties block expands beyond its size");
    }
    auto [pos, inserted] = props.map_.emplace(std::string(it->key()), std::string(it->value()));
    // Names must be strictly increasing: each one lands at the end.
    if (!inserted || std::next(pos) != props.map_.end()) {
      return absl::DataLossError(
          absl::StrFormat("properties block unsorted or duplicate at \"%s\"", it->key()));
    }
    if (it->key() == property_names::kExternalSstGlobalSeqno) {
      props.global_seqno_value_offset_ = it->value_offset();
    }
  }
  if (!it->status().ok()) return it->status();
  return props;
}

std::optional<std::string_view> TableProperties::Get(std::string_view name) const {
  auto it = map_.find(name);
  if (it == map_.end()) return std::nullopt;
  return std::string_view(it->second);
}

absl::StatusOr<uint64_t> TableProperties::GetVarint(std::string_view name) const {
  std::optional<std::string_view> raw = Get(name);
  if (!raw.has_value()) {
    return absl::NotFoundError(absl::StrFormat("no property %s", name));
  }
  uint64_t v = 0;
  if (!GetVarint64(&*raw, &v)) {
    return absl::DataLossError(absl::StrFormat("property %s is not a varint64", name));
  }
  return v;
}

absl::StatusOr<uint32_t> TableProperties::GetFixed32(std::string_view name) const {
  std::optional<std::string_view> raw = Get(name);
  if (!raw.has_value()) {
    return absl::NotFoundError(absl::StrFormat("no property %s", name));
  }
  if (raw->size() != 4) {
    return absl::DataLossError(absl::StrFormat("property %s is not a fixed32", name));
  }
  return DecodeFixed32(raw->data());
}

uint64_t TableProperties::GetVarintOr(std::string_view name, uint64_t fallback) const {
  absl::StatusOr<uint64_t> v = GetVarint(name);
  return v.ok() ? *v : fallback;
}

std::string TableProperties::compression_name() const {
  return std::string(Get(property_names::kCompression).value_or(""));
}

absl::StatusOr<uint32_t> TableProperties::index_type() const {
  if (!Get(property_names::kIndexType).has_value()) return 0;
  return GetFixed32(property_names::kIndexType);
}

}  // namespace rockpool::sst
