// The byte-for-byte check between strategies.
//   blocks mode: the framed outputs of two runs, record by record: same
//     source block, same compressed bytes. A framed output is every
//     compressed block (and blob) a blocks-mode child makes, each as
//     fixed32 file index | fixed64 source offset | fixed32 size | bytes
//     (little endian); FramedWriter writes it, FramedReader reads it.
//   compaction mode: the data blocks of the SSTs two compactions produced,
//     in key order, read with rockpool's SST reader: same compression type,
//     same stored bytes; and the blob files they wrote from a copied BlobDB
//     (compaction_replay.h lists them as ("blob:<family>", path) outputs),
//     record by record: same family, same compression type, same key, same
//     stored (compressed) value.
// A difference is reported as "<file>: offset <N>: ..." naming the source
// block (blocks mode) or the output block (compaction mode).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_COMPARE_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_COMPARE_H_

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/sst/sst_file.h"

namespace rockpool::replay {

inline constexpr size_t kFramedHeaderBytes = 16;  // a framed record's header

// Buffered by stdio in a buffer made by Open, so appends do not allocate
// inside the measured window.
class FramedWriter {
 public:
  absl::Status Open(const std::string& path);
  absl::Status Append(uint32_t file_index, uint64_t offset, std::string_view bytes);
  absl::Status Flush();

 private:
  std::string buffer_;  // stdio's: declared first, so it outlives file_
  std::string header_;  // one record's, reserved
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};
};

struct FramedRecord {
  uint32_t file = 0;
  uint64_t offset = 0;
  std::string bytes;
};

class FramedReader {
 public:
  explicit FramedReader(const std::string& path);
  bool ok() const { return static_cast<bool>(in_) || in_.eof(); }
  // nullopt at a clean end; error on a torn record.
  absl::StatusOr<std::optional<FramedRecord>> Next();

 private:
  std::ifstream in_;
  std::string path_;
};

struct Comparison {
  bool identical = true;
  uint64_t blocks = 0;     // blocks compared (of the reference)
  std::string difference;  // first difference, if any
};

// `files` maps the framed file index to the input path (for messages).
absl::StatusOr<Comparison> CompareFramedOutputs(const std::string& reference,
                                                const std::string& other,
                                                const std::vector<std::string>& files,
                                                const std::string& other_label);

using OutputList = std::vector<std::pair<std::string, std::string>>;  // (group, path)

struct OutputSummary {
  uint64_t files = 0;
  uint64_t data_blocks = 0;
  uint64_t uncompressed_bytes = 0;  // from each block's size prefix
  uint64_t stored_bytes = 0;        // data block payloads as stored
};

// Reads the data blocks of `outputs` (without verifying checksums: a damaged
// block must show up as a difference, not as bad input).
absl::StatusOr<OutputSummary> SummarizeOutputs(const OutputList& outputs,
                                               const sst::SstReadOptions& read_options);

absl::StatusOr<Comparison> CompareCompactionOutputs(const OutputList& reference,
                                                    const OutputList& other,
                                                    const sst::SstReadOptions& read_options,
                                                    const std::string& other_label);

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

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_COMPARE_H_
