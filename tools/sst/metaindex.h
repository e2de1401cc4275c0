// The metaindex block: a block mapping meta block names to their handles
// (table/meta_blocks.cc). Names this reader uses:
#ifndef ROCKPOOL_TOOLS_SST_METAINDEX_H_
#define ROCKPOOL_TOOLS_SST_METAINDEX_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tools/sst/block_handle.h"

namespace rockpool::sst {

namespace meta_block_names {
inline constexpr std::string_view kProperties = "rocksdb.properties";
inline constexpr std::string_view kPropertiesOld = "rocksdb.stats";
inline constexpr std::string_view kCompressionDict = "rocksdb.compression_dict";
inline constexpr std::string_view kRangeDel = "rocksdb.range_del";
// format_version >= 6: the (top-level) index handle.
inline constexpr std::string_view kIndex = "rocksdb.index";
}  // namespace meta_block_names

using Metaindex = std::map<std::string, BlockHandle, std::less<>>;

// Parses uncompressed metaindex block contents. DataLoss (no file context)
// for malformed blocks or handles, unsorted or duplicate names.
absl::StatusOr<Metaindex> ParseMetaindex(std::string_view block);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_METAINDEX_H_
