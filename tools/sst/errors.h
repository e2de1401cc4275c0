// Error helpers for the SST reader: every error names the file and the byte
// offset it concerns, on one line: "<file>: offset <N>: <what>".
//
// Status codes used throughout rockpool::sst:
//   NotFound          the file does not exist
//   InvalidArgument   not an SST file at all (too short, wrong magic)
//   DataLoss          corruption: checksum mismatch, malformed block or handle
//   Unimplemented     a valid but unsupported feature (format_version > 7,
//                     unknown checksum type, compressed block without hook)
//   ResourceExhausted a block larger than SstReadOptions::max_block_size
#ifndef ROCKPOOL_TOOLS_SST_ERRORS_H_
#define ROCKPOOL_TOOLS_SST_ERRORS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace rockpool::sst {

// DataLoss: "<file>: offset <offset>: <what>".
absl::Status CorruptionError(std::string_view file, uint64_t offset, std::string_view what);

// Unimplemented: "<file>: offset <offset>: unsupported: <what>".
absl::Status UnsupportedError(std::string_view file, uint64_t offset, std::string_view what);

// Same code as `status`, message prefixed with "<file>: offset <offset>: ".
// OK stays OK.
absl::Status WithContext(const absl::Status& status, std::string_view file, uint64_t offset);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_ERRORS_H_
