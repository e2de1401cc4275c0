// Blob files as sst_replay inputs: integrated BlobDB's *.blob files, given
// directly, found in directories, or belonging to a DB directory. Parsed
// and CRC-checked with tools/sst/blob_file.h (the one blob parser); this
// file adds what the replay needs to know about each (codec, counts), and
// finds and copies DBs with blob files (compaction mode compacts those
// whole: ingesting their SSTs would drop the blob references).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_BLOB_INPUTS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_BLOB_INPUTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compression/block_codecs.h"

namespace rockpool::replay {

// A *.blob name, or a file starting with the blob magic number: what the
// session reads with ScanBlobFile instead of the SST reader.
bool IsBlobPath(const std::string& path);

struct BlobInput {
  std::string path;
  uint64_t file_number = 0;  // from the name (000123.blob)
  uint8_t compression = 0;   // RocksDB's type byte, from the header
  uint64_t records = 0;
  uint64_t stored_value_bytes = 0;  // values as stored (compressed if the file is)
  bool has_footer = false;          // false: still being written (not an error)
};

// Reads and verifies the whole file (header, every record's header and blob
// CRC, the footer if present). Errors: "<path>: offset <N>: <what>", with
// InvalidArgument (not a blob file), DataLoss (corrupt) or NotFound codes.
absl::StatusOr<BlobInput> ScanBlobFile(const std::string& path);

// Decompresses every blob of a (compressed) blob file: a blob whose CRCs
// hold but whose payload does not decompress is bad input too, and
// compaction mode must report it before RocksDB reads it. DataLoss,
// "<path>: offset <record>: blob does not decompress: ...".
absl::Status VerifyBlobValues(const std::string& path, const BlockCodecs& codecs);

// A file mapped read-only: blocks mode parses blob files in place, so the
// measured window's heap figures hold the codec churn, not a copy of the
// file.
class MappedFile {
 public:
  static absl::StatusOr<MappedFile> Open(const std::string& path);
  std::string_view data() const {
    return {static_cast<const char*>(map_.get()), map_.get_deleter().size};
  }

 private:
  struct Unmap {
    size_t size = 0;
    void operator()(void* addr) const;
  };
  MappedFile(void* addr, size_t size) : map_(addr, Unmap{size}) {}
  std::unique_ptr<void, Unmap> map_;  // null for an empty file
};

// The number in a RocksDB file name (000123.sst, 000123.blob); 0 if none.
uint64_t FileNumber(const std::string& path);

// The arguments that are DB directories holding at least one *.blob file,
// in argument order.
std::vector<std::string> BlobDbDirectories(const std::vector<std::string>& args);

// A private copy of such a DB for compaction mode (its SSTs hold blob
// references that ingestion would drop): every regular file of `source` but
// LOCK and the LOG files, into `target`, which is created and must not
// exist. The source is only read. Errors name the file (offset 0).
absl::Status CopyDbDirectory(const std::string& source, const std::string& target);

// The sizes of `paths` summed (0 for a file whose size cannot be read).
uint64_t FileBytes(const std::vector<std::string>& paths);

// The bytes CopyDbDirectory would copy from `source`.
absl::StatusOr<uint64_t> DbCopyBytes(const std::string& source);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_BLOB_INPUTS_H_
