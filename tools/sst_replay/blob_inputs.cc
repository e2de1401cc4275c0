#include "tools/sst_replay/blob_inputs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/errors.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;

bool StartsWithBlobMagic(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  uint32_t magic = 0;
  const bool read = ::pread(fd, &magic, sizeof(magic), 0) == sizeof(magic);
  ::close(fd);
  return read && magic == sst::kBlobMagic;
}

// A RocksDB DB directory: has a CURRENT file.
bool IsDbDirectory(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
}

}  // namespace

uint64_t FileNumber(const std::string& path) {
  uint64_t n = 0;
  if (!absl::SimpleAtoi(fs::path(path).stem().string(), &n)) return 0;
  return n;
}

bool IsBlobPath(const std::string& path) {
  return fs::path(path).extension() == ".blob" || StartsWithBlobMagic(path);
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": offset 0: cannot open"));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: cannot stat"));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* addr = nullptr;
  if (size > 0) {
    addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: cannot map"));
    }
  }
  ::close(fd);  // the mapping stays valid
  return MappedFile(addr, size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept : addr_(other.addr_), size_(other.size_) {
  other.addr_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (addr_ != nullptr) ::munmap(addr_, size_);
}

absl::StatusOr<BlobInput> ScanBlobFile(const std::string& path) {
  absl::StatusOr<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  const std::string_view data = mapped->data();
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(data, path);
  if (!parsed.ok()) return parsed.status();
  BlobInput in;
  in.path = path;
  in.file_number = FileNumber(path);
  in.compression = parsed->header.compression;
  in.records = parsed->records.size();
  for (const sst::BlobRecord& r : parsed->records) in.stored_value_bytes += r.value.size();
  in.has_footer = parsed->footer.has_value();
  return in;
}

absl::Status VerifyBlobValues(const std::string& path, const BlockCodecs& codecs) {
  absl::StatusOr<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(mapped->data(), path);
  if (!parsed.ok()) return parsed.status();
  const uint8_t type = parsed->header.compression;
  if (type == 0) return absl::OkStatus();
  std::string value;
  for (const sst::BlobRecord& r : parsed->records) {
    if (absl::Status s = codecs.Decompress(type, r.value, nullptr, &value); !s.ok()) {
      return sst::CorruptionError(
          path, r.offset, absl::StrCat("blob does not decompress: ", std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> BlobDbDirectories(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (!IsDbDirectory(arg)) continue;
    std::error_code ec;
    for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".blob") {
        out.push_back(arg);
        break;
      }
    }
  }
  return out;
}

namespace {

// What a copy of a DB directory leaves out: LOCK belongs to whoever has the
// source open; LOGs are RocksDB's text logs, not state, and the copy writes
// its own.
bool LeftOutOfCopy(const std::string& name) {
  return name == "LOCK" || name == "LOG" || absl::StartsWith(name, "LOG.old");
}

}  // namespace

absl::StatusOr<uint64_t> DbCopyBytes(const std::string& source) {
  std::error_code ec;
  uint64_t bytes = 0;
  for (fs::directory_iterator it(source, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_regular_file(ec2) || LeftOutOfCopy(it->path().filename().string())) continue;
    const uintmax_t size = it->file_size(ec2);
    if (!ec2) bytes += size;
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": offset 0: cannot list directory: ", ec.message()));
  }
  return bytes;
}

absl::Status CopyDbDirectory(const std::string& source, const std::string& target) {
  std::error_code ec;
  if (fs::exists(target, ec)) {
    return absl::InternalError(absl::StrCat(target, ": offset 0: scratch copy already exists"));
  }
  fs::create_directories(target, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(target, ": offset 0: cannot create: ", ec.message()));
  }
  for (fs::directory_iterator it(source, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code ec2;
    if (!it->is_regular_file(ec2) || LeftOutOfCopy(name)) continue;
    fs::copy_file(it->path(), fs::path(target) / name, ec2);
    if (ec2) {
      return absl::InvalidArgumentError(
          absl::StrCat(it->path().string(), ": offset 0: cannot copy: ", ec2.message()));
    }
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": offset 0: cannot list directory: ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace rockpool::replay
