#include "tools/sst_replay/framed_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "compression/coding.h"

namespace rockpool::replay {
namespace {

constexpr size_t kWriteBuffer = size_t{1} << 20;

}  // namespace

FramedWriter::~FramedWriter() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status FramedWriter::Open(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", path));
  buffer_.reserve(kWriteBuffer + 64);
  return absl::OkStatus();
}

absl::Status FramedWriter::Append(uint32_t file_index, uint64_t offset, std::string_view bytes) {
  if (buffer_.size() + 16 + bytes.size() > kWriteBuffer) {
    if (absl::Status s = Flush(); !s.ok()) return s;
  }
  rockpool::PutFixed32(&buffer_, file_index);
  rockpool::PutFixed64(&buffer_, offset);
  rockpool::PutFixed32(&buffer_, static_cast<uint32_t>(bytes.size()));
  if (bytes.size() > kWriteBuffer) {  // too big to buffer: header, then the bytes
    if (absl::Status s = Flush(); !s.ok()) return s;
    return WriteAll(bytes);
  }
  buffer_.append(bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::Status FramedWriter::Flush() {
  absl::Status s = WriteAll(buffer_);
  buffer_.clear();
  return s;
}

absl::Status FramedWriter::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t w = ::write(fd_, bytes.data(), bytes.size());
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return absl::ErrnoToStatus(errno, "writing the replay output");
    bytes.remove_prefix(static_cast<size_t>(w));
  }
  return absl::OkStatus();
}

}  // namespace rockpool::replay
