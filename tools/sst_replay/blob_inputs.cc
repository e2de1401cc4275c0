#include "tools/sst_replay/blob_inputs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/errors.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;

// The regular files of DB directory `source` a copy takes: all but LOCK,
// which belongs to whoever has the source open, and the LOG files
// (RocksDB's text logs, not state; the copy writes its own).
absl::StatusOr<std::vector<std::string>> FilesToCopy(const std::string& source) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(source, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code ec2;
    if (!it->is_regular_file(ec2) || name == "LOCK" || name == "LOG" ||
        absl::StartsWith(name, "LOG.old")) {
      continue;
    }
    out.push_back(it->path().string());
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": offset 0: cannot list directory: ", ec.message()));
  }
  return out;
}

}  // namespace

uint64_t FileNumber(const std::string& path) {
  uint64_t n = 0;
  return absl::SimpleAtoi(fs::path(path).stem().string(), &n) ? n : 0;
}

bool IsBlobPath(const std::string& path) {
  if (fs::path(path).extension() == ".blob") return true;
  absl::StatusOr<MappedFile> file = MappedFile::Open(path);
  uint32_t magic = 0;
  if (!file.ok() || file->data().size() < sizeof(magic)) return false;
  std::memcpy(&magic, file->data().data(), sizeof(magic));
  return magic == sst::kBlobMagic;
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": offset 0: cannot open"));
  auto failed = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: ", what));
  };
  struct stat st;
  if (::fstat(fd, &st) != 0) return failed("cannot stat");
  const size_t size = static_cast<size_t>(st.st_size);
  void* addr = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  if (addr == MAP_FAILED) return failed("cannot map");
  ::close(fd);  // the mapping stays valid
  return MappedFile(addr, size);
}

void MappedFile::Unmap::operator()(void* addr) const { ::munmap(addr, size); }

absl::StatusOr<BlobInput> ScanBlobFile(const std::string& path) {
  ROCKPOOL_ASSIGN_OR_RETURN(const MappedFile mapped, MappedFile::Open(path));
  ROCKPOOL_ASSIGN_OR_RETURN(const sst::BlobFile parsed, sst::ParseBlobFile(mapped.data(), path));
  BlobInput in;
  in.path = path;
  in.file_number = FileNumber(path);
  in.compression = parsed.header.compression;
  in.records = parsed.records.size();
  for (const sst::BlobRecord& r : parsed.records) in.stored_value_bytes += r.value.size();
  in.has_footer = parsed.footer.has_value();
  return in;
}

absl::Status VerifyBlobValues(const std::string& path, const BlockCodecs& codecs) {
  ROCKPOOL_ASSIGN_OR_RETURN(const MappedFile mapped, MappedFile::Open(path));
  ROCKPOOL_ASSIGN_OR_RETURN(const sst::BlobFile parsed, sst::ParseBlobFile(mapped.data(), path));
  const uint8_t type = parsed.header.compression;
  if (type == 0) return absl::OkStatus();
  std::string value;
  for (const sst::BlobRecord& r : parsed.records) {
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
    std::error_code ec;
    // A RocksDB DB directory has a CURRENT file.
    if (!fs::is_regular_file(fs::path(arg) / "CURRENT", ec)) continue;
    for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".blob") {
        out.push_back(arg);
        break;
      }
    }
  }
  return out;
}

uint64_t FileBytes(const std::vector<std::string>& paths) {
  uint64_t bytes = 0;
  for (const std::string& f : paths) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(f, ec);
    if (!ec) bytes += size;
  }
  return bytes;
}

absl::StatusOr<uint64_t> DbCopyBytes(const std::string& source) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<std::string> files, FilesToCopy(source));
  return FileBytes(files);
}

absl::Status CopyDbDirectory(const std::string& source, const std::string& target) {
  std::error_code ec;
  if (fs::exists(target, ec)) {
    return absl::InternalError(absl::StrCat(target, ": offset 0: scratch copy already exists"));
  }
  ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<std::string> files, FilesToCopy(source));
  fs::create_directories(target, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(target, ": offset 0: cannot create: ", ec.message()));
  }
  for (const std::string& f : files) {
    fs::copy_file(f, fs::path(target) / fs::path(f).filename(), ec);
    if (ec) {
      return absl::InvalidArgumentError(absl::StrCat(f, ": offset 0: cannot copy: ", ec.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace rockpool::replay
