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

namespace {

// Opens `path` read-only and checks it is a regular file; error messages
// start with `where` ("<path>: offset 0: " or "<path>: ").
absl::Status OpenRegularFile(const std::string& path, const std::string& where, int* fd_out,
                             uint64_t* size) {
  int fd = -1;
  do {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for
    // one forever; it changes nothing for a regular file.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat(where, "cannot open"));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat(where, "cannot stat"));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                                              : "a device or socket";
    return absl::InvalidArgumentError(absl::StrCat(where, "not a regular file (", kind, ")"));
  }
  *fd_out = fd;
  *size = static_cast<uint64_t>(st.st_size);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  int fd = -1;
  uint64_t size = 0;
  if (absl::Status s = OpenRegularFile(path, absl::StrCat(path, ": offset 0: "), &fd, &size);
      !s.ok()) {
    return s;
  }
  return std::make_unique<FileSource>(fd, size);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes) {
  int fd = -1;
  uint64_t size = 0;
  const std::string where = absl::StrCat(path, ": ");
  if (absl::Status s = OpenRegularFile(path, where, &fd, &size); !s.ok()) return s;
  const FileSource file(fd, size);
  if (size > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, size, " bytes, more than the ", max_bytes, " expected"));
  }
  std::string out;
  if (absl::Status s = file.ReadAt(0, static_cast<size_t>(size), &out); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(where, s.message()));
  }
  return out;
}

std::unique_ptr<ByteSource> MakeBufferSource(std::string contents) {
  return std::make_unique<BufferSource>(std::move(contents));
}

}  // namespace rockpool::sst
