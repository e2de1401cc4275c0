// RocksDB integrated BlobDB blob files (7.x-11.x, db/blob/blob_log_format.h)
// as plain format code, like the SST reader: no RocksDB headers, no codecs.
//
// Layout (all integers little-endian):
//   header  30 bytes: magic 0x00248f37 (Fixed32), version (Fixed32, 1),
//           column family id (Fixed32), flags (1 byte, bit 0 = has_ttl),
//           compression type (1 byte, RocksDB's type byte), expiration range
//           (2 x Fixed64). No checksum.
//   records key size, value size, expiration (3 x Fixed64), header CRC
//           (Fixed32: masked crc32c of the 24 bytes before it), blob CRC
//           (Fixed32: masked crc32c of key then value), key, value (the
//           value compressed as one RocksDB block, format version 2, when
//           the header's compression type is not kNoCompression).
//   footer  32 bytes, only in a file that was closed: magic (Fixed32),
//           blob count (Fixed64), expiration range (2 x Fixed64), masked
//           crc32c of the 28 bytes before it (Fixed32). A file still being
//           written has none, which is not corruption.
//
// Errors name the file and the byte offset, on one line (errors.h):
// InvalidArgument for a file that is not a blob file (too short, wrong
// magic), DataLoss for corruption (CRC mismatch, record past the end, footer
// count not matching the records).
#ifndef ROCKPOOL_TOOLS_SST_BLOB_FILE_H_
#define ROCKPOOL_TOOLS_SST_BLOB_FILE_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rockpool::sst {

inline constexpr uint32_t kBlobMagic = 0x00248f37;
inline constexpr size_t kBlobHeaderSize = 30;
inline constexpr size_t kBlobRecordHeaderSize = 32;
inline constexpr size_t kBlobFooterSize = 32;

struct BlobFileHeader {
  uint32_t version = 0;
  uint32_t column_family_id = 0;
  bool has_ttl = false;
  uint8_t compression = 0;  // RocksDB's compression type byte
  uint64_t expiration_first = 0;
  uint64_t expiration_last = 0;
};

struct BlobRecord {
  uint64_t offset = 0;     // of the record header in the file
  std::string_view key;    // views into the parsed bytes
  std::string_view value;  // as stored (compressed if the file is)
  uint64_t expiration = 0;
};

struct BlobFileFooter {
  uint64_t blob_count = 0;
  uint64_t expiration_first = 0;
  uint64_t expiration_last = 0;
};

struct BlobFile {
  BlobFileHeader header;
  std::vector<BlobRecord> records;
  std::optional<BlobFileFooter> footer;  // absent: the file was not closed
};

// Parses and verifies every CRC. `data` must outlive the result (records are
// views into it); `file` names it in errors.
absl::StatusOr<BlobFile> ParseBlobFile(std::string_view data, std::string_view file);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_BLOB_FILE_H_
