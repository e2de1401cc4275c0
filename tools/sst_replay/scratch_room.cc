#include "tools/sst_replay/scratch_room.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "tools/console/units.h"

namespace rockpool::replay {

namespace {

std::string Bytes(uint64_t bytes) { return console::FormatBytes(static_cast<double>(bytes)); }

}  // namespace

Scratch::~Scratch() {
  if (path_.empty()) return;
  if (keep_) {
    std::fprintf(stderr, "sst_replay: scratch directory kept: %s\n", path_.c_str());
    return;
  }
  RemoveQuietly(path_);
}

absl::Status Scratch::Create(std::string parent, bool keep) {
  keep_ = keep;
  if (parent.empty()) {
    const char* env = std::getenv("TMPDIR");
    parent = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  std::string tmpl = parent + "/sst_replay.XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(parent, ": cannot create a scratch directory: ", std::strerror(errno)));
  }
  path_ = tmpl;
  return absl::OkStatus();
}

std::string Scratch::Path(std::string_view name) const {
  return absl::StrCat(path_, "/", std::string(name));
}

void RemoveQuietly(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

ScratchRoom PlanScratchRoom(uint64_t bytes_per_copy, int runs, bool keep_tmp, uint64_t free_bytes) {
  const int at_once = keep_tmp ? runs : std::min(runs, 2);
  return {bytes_per_copy, runs, at_once, (static_cast<uint64_t>(at_once) + 1) * bytes_per_copy,
          free_bytes};
}

absl::StatusOr<uint64_t> FreeBytes(const std::string& dir) {
  struct statvfs fs;
  if (::statvfs(dir.c_str(), &fs) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": cannot read the free space: ", std::strerror(errno)));
  }
  return static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_frsize);
}

std::string DescribeScratchRoom(const ScratchRoom& room, const std::string& dir) {
  return absl::StrCat("compaction mode copies ", Bytes(room.bytes_per_copy), " per run into ", dir,
                      " (", room.runs, " runs, ", room.copies_at_once,
                      room.copies_at_once == 1 ? " copy" : " copies", " at once): needs up to ",
                      Bytes(room.need_bytes), ", ", Bytes(room.free_bytes), " free");
}

absl::Status CheckScratchRoom(const ScratchRoom& room, const std::string& dir) {
  if (room.need_bytes <= room.free_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "compaction mode needs up to ", Bytes(room.need_bytes), " in ", dir, " (",
      room.copies_at_once + 1, " x ", Bytes(room.bytes_per_copy),
      ": the copies kept at once and the compaction's output), and only ", Bytes(room.free_bytes),
      " is free: free some space, point --tmpdir at a larger file system, or run --mode=blocks"));
}

}  // namespace rockpool::replay
