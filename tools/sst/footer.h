// The footer at the tail of every block-based table (table/format.cc).
//
//   legacy magic (format_version 0), 48 bytes:
//     metaindex handle, index handle, zero padding to 40 bytes, magic (8)
//   format_version 1..5, 53 bytes:
//     checksum type (1), metaindex handle, index handle, padding to 40 bytes,
//     format_version (4), magic (8)
//   format_version 6..7, 53 bytes:
//     checksum type (1), extended magic 3e 00 7a 00 (4),
//     footer checksum (4; computed with this field zeroed, plus the context
//     modifier for the footer's own offset), base_context_checksum (4),
//     metaindex size (4; the metaindex block ends right before the footer's
//     block trailer), 16 reserved bytes, 8 bytes that must be zero,
//     format_version (4), magic (8).
//     The index handle lives in the metaindex ("rocksdb.index").
#ifndef ROCKPOOL_TOOLS_SST_FOOTER_H_
#define ROCKPOOL_TOOLS_SST_FOOTER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "tools/sst/block_handle.h"
#include "tools/sst/checksum.h"

namespace rockpool::sst {

inline constexpr uint64_t kBlockBasedTableMagicNumber = 0x88e241b785f4cff7ull;
inline constexpr uint64_t kLegacyBlockBasedTableMagicNumber = 0xdb4775248b80fb57ull;
inline constexpr size_t kLegacyFooterSize = 48;
inline constexpr size_t kFooterSize = 53;  // format_version >= 1
inline constexpr size_t kMaxFooterSize = kFooterSize;
inline constexpr uint32_t kMaxFormatVersion = 7;

struct Footer {
  bool legacy_magic = false;  // legacy magic number: format_version 0
  uint32_t format_version = 0;
  ChecksumType checksum_type = ChecksumType::kCRC32c;
  uint32_t base_context_checksum = 0;  // 0 unless format_version >= 6
  BlockHandle metaindex_handle;
  // Null for format_version >= 6 (the index handle is in the metaindex).
  BlockHandle index_handle;
  uint64_t footer_offset = 0;  // file offset of the footer's first byte
  size_t encoded_size = 0;     // kLegacyFooterSize or kFooterSize
};

struct FooterDecodeOptions {
  // Verify the format_version >= 6 footer checksum.
  bool verify_checksum = true;
};

// Decodes the footer from `tail`, the last bytes of the file (at least the
// footer; at most kMaxFooterSize are looked at). `file_size` is the size of
// the whole file; `file_name` is used in error messages only.
// Errors: InvalidArgument (too short, not a block-based table magic),
// Unimplemented (format_version > 7, unknown checksum type, reserved bits
// set), DataLoss (bad handles, bad extended magic, footer checksum mismatch).
absl::StatusOr<Footer> DecodeFooter(std::string_view tail, uint64_t file_size,
                                    std::string_view file_name, FooterDecodeOptions options = {});

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_FOOTER_H_
