#include "tools/rockpool/stats_location.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace rockpool::cli {
namespace {

constexpr char kRootDirectory[] = "/run/rockpool";

absl::Status NotPrivate(const std::string& dir, absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat(dir, " ", why, "; give --stats=PATH in a directory only you can write"));
}

}  // namespace

absl::StatusOr<std::string> DefaultStatsDirectory(bool create) {
  std::string dir;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] == '/') {
    dir = absl::StrCat(runtime, "/rockpool");
  } else if (geteuid() == 0) {
    dir = kRootDirectory;
  } else {
    return absl::FailedPreconditionError(
        "no private directory for statistics: XDG_RUNTIME_DIR is not set; give --stats=PATH in "
        "a directory only you can write");
  }
  if (create && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", dir));
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) return absl::ErrnoToStatus(errno, dir);
  if (!S_ISDIR(st.st_mode)) return NotPrivate(dir, "is not a directory");
  if (st.st_uid != geteuid()) return NotPrivate(dir, "belongs to another user");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return NotPrivate(dir, "is writable by others");
  return dir;
}

absl::StatusOr<std::vector<std::string>> DefaultStatsFiles() {
  absl::StatusOr<std::string> dir = DefaultStatsDirectory(/*create=*/false);
  if (!dir.ok()) return dir.status();
  DIR* d = ::opendir(dir->c_str());
  if (d == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", *dir));
  std::vector<std::string> files;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name[0] != '.' && absl::EndsWith(name, ".stats")) files.push_back(*dir + "/" + name);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no statistics file in ", *dir, " (rockpool run --stats writes them there)"));
  }
  return files;
}

}  // namespace rockpool::cli
