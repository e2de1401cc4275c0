// Input discovery for sst_replay: SST and blob files, directories of them,
// RocksDB DB directories (their *.sst and *.blob files; nothing is ever
// written there), and what each SST holds (codec and options as recorded,
// block counts, format). Blob files: blob_inputs.h.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_INPUTS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// Expands arguments into file paths, in argument order (a directory's *.sst
// and *.blob files sorted by name), without duplicates. Errors (InvalidArgument or
// NotFound) read "<path>: offset 0: <what>".
absl::StatusOr<std::vector<std::string>> ResolveInputs(const std::vector<std::string>& args);

struct InputFile {
  std::string path;
  uint64_t file_number = 0;  // from the name (000123.sst), for ordering
  CodecSettings codec;       // as recorded: type byte and options
  bool has_dictionary = false;
  uint32_t format_version = 0;
  uint8_t checksum = 1;
  uint64_t data_blocks = 0;
  uint64_t stored_data_bytes = 0;  // sum of data block sizes (no trailers)
  bool ingestible = false;         // written by SstFileWriter: ingestible as is
  std::string column_family;
  // The compression manager RocksDB >= 10.4 records when one was set
  // (compression_options' "_compression_manager=<id>" pseudo-option, e.g.
  // "rockpool"); "" for the built-in default and older files.
  std::string compression_manager;
};

// Opens `path` with the reader (footer, metaindex, properties, dictionary,
// index) and collects the above. Errors are the reader's one-line messages.
absl::StatusOr<InputFile> ScanFile(const std::string& path, const sst::SstReadOptions& options);

// Reads and decompresses every data block (checksums verified): bad input
// fails here, with the reader's message, before RocksDB sees it.
absl::Status VerifyDataBlocks(const std::string& path, const sst::SstReadOptions& options);

// RocksDB's compression name ("ZSTD", "Zlib", "NoCompression", ...) as a
// block type byte; 0xff if unknown.
uint8_t CompressionTypeFromName(std::string_view name);
// Parses "rocksdb.compression_options" ("window_bits=-14; level=32767; ...").
CodecSettings ParseCompressionOptions(std::string_view text, uint8_t type);

// The "_compression_manager=" value of a compression_options property; "" if
// it has none.
std::string RecordedCompressionManager(std::string_view compression_options);

// Block types rockpool's reader can decompress: none, zlib, LZ4, LZ4HC, zstd.
bool RockpoolDecodes(uint8_t type);

// "zstd", "zlib", "none", "snappy", ...
std::string CodecName(uint8_t type);

// What the report says of each input, SSTs first, then blob files (the
// order plan.h keeps); the modes fill in their verdicts.
struct InputReport {
  std::string path;
  std::string kind = "sst";  // "sst", "blob", "blob (no footer: ...)"
  std::string codec;
  int level = 0;
  uint64_t data_blocks = 0;
  uint64_t stored_data_bytes = 0;
  uint32_t format_version = 0;
  std::string checksum;
  bool dictionary = false;
  std::string blocks_mode;      // "replayed", or why not
  std::string compaction_mode;  // "compacted", "staged and compacted", or why not
};

std::vector<InputReport> InputReports(const std::vector<InputFile>& ssts,
                                      const std::vector<BlobInput>& blobs);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_INPUTS_H_
