// The properties block ("rocksdb.properties" in the metaindex;
// table/meta_blocks.cc): a block whose keys are property names in sorted
// order. Built-in numeric properties are varint64-encoded, string properties
// raw bytes, and the block-based table collector's index type a fixed32.
#ifndef ROCKPOOL_TOOLS_SST_PROPERTIES_H_
#define ROCKPOOL_TOOLS_SST_PROPERTIES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace rockpool::sst {

namespace property_names {
inline constexpr std::string_view kCompression = "rocksdb.compression";
inline constexpr std::string_view kCompressionOptions = "rocksdb.compression_options";
inline constexpr std::string_view kNumDataBlocks = "rocksdb.num.data.blocks";
inline constexpr std::string_view kNumEntries = "rocksdb.num.entries";
inline constexpr std::string_view kDataSize = "rocksdb.data.size";
inline constexpr std::string_view kIndexSize = "rocksdb.index.size";
inline constexpr std::string_view kIndexPartitions = "rocksdb.index.partitions";
inline constexpr std::string_view kTopLevelIndexSize = "rocksdb.top-level.index.size";
inline constexpr std::string_view kRawKeySize = "rocksdb.raw.key.size";
inline constexpr std::string_view kRawValueSize = "rocksdb.raw.value.size";
inline constexpr std::string_view kFormatVersion = "rocksdb.format.version";
inline constexpr std::string_view kIndexKeyIsUserKey = "rocksdb.index.key.is.user.key";
inline constexpr std::string_view kIndexValueIsDeltaEncoded =
    "rocksdb.index.value.is.delta.encoded";
inline constexpr std::string_view kIndexType = "rocksdb.block.based.table.index.type";  // fixed32
inline constexpr std::string_view kComparator = "rocksdb.comparator";
inline constexpr std::string_view kColumnFamilyName = "rocksdb.column.family.name";
inline constexpr std::string_view kExternalSstGlobalSeqno =
    "rocksdb.external_sst_file.global_seqno";  // fixed64
}  // namespace property_names

class TableProperties {
 public:
  using Map = std::map<std::string, std::string, std::less<>>;

  // Parses uncompressed properties block contents. DataLoss (no file
  // context) if the block is malformed, unsorted or has duplicate names.
  static absl::StatusOr<TableProperties> Parse(std::string_view block);

  const Map& all() const { return map_; }
  std::optional<std::string_view> Get(std::string_view name) const;
  // NotFound if absent, DataLoss if not a valid varint64 / fixed32.
  absl::StatusOr<uint64_t> GetVarint(std::string_view name) const;
  absl::StatusOr<uint32_t> GetFixed32(std::string_view name) const;
  // `fallback` when absent or malformed.
  uint64_t GetVarintOr(std::string_view name, uint64_t fallback) const;

  std::string compression_name() const;  // "" if absent
  uint64_t num_data_blocks() const { return GetVarintOr(property_names::kNumDataBlocks, 0); }
  uint64_t num_entries() const { return GetVarintOr(property_names::kNumEntries, 0); }
  uint64_t data_size() const { return GetVarintOr(property_names::kDataSize, 0); }
  uint64_t index_size() const { return GetVarintOr(property_names::kIndexSize, 0); }
  uint64_t index_partitions() const { return GetVarintOr(property_names::kIndexPartitions, 0); }
  uint64_t format_version() const { return GetVarintOr(property_names::kFormatVersion, 0); }
  bool index_key_is_user_key() const {
    return GetVarintOr(property_names::kIndexKeyIsUserKey, 0) != 0;
  }
  bool index_value_is_delta_encoded() const {
    return GetVarintOr(property_names::kIndexValueIsDeltaEncoded, 0) != 0;
  }
  // Raw BlockBasedTableOptions::IndexType; kBinarySearch (0) when absent,
  // as RocksDB assumes. DataLoss if present but not 4 bytes.
  absl::StatusOr<uint32_t> index_type() const;

  // Offset within the block of the external-SST global seqno value, which
  // RocksDB may rewrite in place on ingestion (invalidating the checksum).
  std::optional<size_t> global_seqno_value_offset() const { return global_seqno_value_offset_; }

 private:
  Map map_;
  std::optional<size_t> global_seqno_value_offset_;
};

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_PROPERTIES_H_
