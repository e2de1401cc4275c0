#include "tools/sst/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"

namespace rockpool::sst {
namespace {

absl::Status CheckRange(uint64_t size, uint64_t offset, size_t n) {
  if (offset > size || n > size - offset) {
    return absl::OutOfRangeError(absl::StrCat("read of ", n, " bytes at offset ", offset,
                                              " is past the end (", size, " bytes)"));
  }
  return absl::OkStatus();
}

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override { return size_; }

  absl::Status ReadAt(uint64_t offset, size_t n, std::string* out) const override {
    absl::Status s = CheckRange(size_, offset, n);
    if (!s.ok()) return s;
    out->resize(n);
    size_t done = 0;
    while (done < n) {
      const ssize_t r =
          ::pread(fd_, out->data() + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        return absl::ErrnoToStatus(errno, absl::StrCat("pread at offset ", offset + done));
      }
      if (r == 0) {
        return absl::DataLossError(
            absl::StrCat("file shrank while reading: end of file at offset ", offset + done));
      }
      done += static_cast<size_t>(r);
    }
    return absl::OkStatus();
  }

 private:
  int fd_;
  uint64_t size_;
};

class BufferSource final : public ByteSource {
 public:
  explicit BufferSource(std::string contents) : contents_(std::move(contents)) {}
  uint64_t size() const override { return contents_.size(); }
  absl::Status ReadAt(uint64_t offset, size_t n, std::string* out) const override {
    absl::Status s = CheckRange(contents_.size(), offset, n);
    if (!s.ok()) return s;
    out->assign(contents_, static_cast<size_t>(offset), n);
    return absl::OkStatus();
  }

 private:
  std::string contents_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: cannot open"));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: cannot stat"));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": offset 0: not a regular file"));
  }
  return std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size));
}

std::unique_ptr<ByteSource> MakeBufferSource(std::string contents) {
  return std::make_unique<BufferSource>(std::move(contents));
}

}  // namespace rockpool::sst
