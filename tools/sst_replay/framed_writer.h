// blocks mode's output: every compressed block (and blob) a child run makes,
// framed so the parent can compare the two strategies byte for byte
// (block_replay.h describes the frame). Buffered, the buffer reserved up
// front, so steady-state appends do not allocate inside the measured window.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_FRAMED_WRITER_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_FRAMED_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace rockpool::replay {

class FramedWriter {
 public:
  FramedWriter() = default;
  ~FramedWriter();
  FramedWriter(const FramedWriter&) = delete;
  FramedWriter& operator=(const FramedWriter&) = delete;

  absl::Status Open(const std::string& path);
  // fixed32 file index | fixed64 offset | fixed32 size | bytes.
  absl::Status Append(uint32_t file_index, uint64_t offset, std::string_view bytes);
  absl::Status Flush();

 private:
  absl::Status WriteAll(std::string_view bytes);

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_FRAMED_WRITER_H_
