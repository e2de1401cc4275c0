// compaction mode's byte-for-byte check for blob files: the blob files the
// stock and pooled compactions of a copied BlobDB wrote (compaction_replay.h
// lists them as ("blob:<family>", path) outputs), record by record: same
// family, same compression type, same key, same stored (compressed) value.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_BLOB_COMPARE_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_BLOB_COMPARE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tools/sst_replay/compare.h"

namespace rockpool::replay {

// Splits outputs into (SSTs, blob files: their group starts with "blob:"),
// keeping their order.
std::pair<OutputList, OutputList> SplitOutputs(const OutputList& outputs);

struct BlobOutputSummary {
  uint64_t files = 0;
  uint64_t blobs = 0;
  uint64_t uncompressed_bytes = 0;  // from each compressed blob's size prefix
  uint64_t stored_bytes = 0;
};
absl::StatusOr<BlobOutputSummary> SummarizeBlobOutputs(const OutputList& blobs);

// `blocks` counts the blobs compared; differences read
// "<file>: offset <N>: <label> blob differs from stock's ...".
absl::StatusOr<Comparison> CompareBlobOutputs(const OutputList& reference, const OutputList& other,
                                              const std::string& other_label);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_BLOB_COMPARE_H_
