#include "tools/sst_replay/scratch.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace rockpool::replay {

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

}  // namespace rockpool::replay
