// Random-access, read-only bytes: an SST file opened O_RDONLY, or an
// in-memory buffer (fuzzers, tests). Reads are positional (pread), so one
// source may be read from several threads at once.
#ifndef ROCKPOOL_TOOLS_SST_BYTE_SOURCE_H_
#define ROCKPOOL_TOOLS_SST_BYTE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rockpool::sst {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Replaces *out with exactly `n` bytes from `offset`. OutOfRange if the
  // range is not inside the source; an I/O error status on read failure.
  virtual absl::Status ReadAt(uint64_t offset, size_t n, std::string* out) const = 0;
};

// Opens `path` read-only (O_RDONLY | O_CLOEXEC); the file is never written.
// NotFound if missing, InvalidArgument if not a regular file. A FIFO never
// blocks the open (O_NONBLOCK) and a device is never read: both are refused.
absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path);

// The whole regular file at `path`, for the small inputs a tool parses in
// memory (a program's ELF headers, a statistics file, an OPTIONS or job
// file). As OpenFileSource, plus InvalidArgument for a file over
// `max_bytes`; messages are "<path>: <what>" (no offset).
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes);

std::unique_ptr<ByteSource> MakeBufferSource(std::string contents);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_BYTE_SOURCE_H_
