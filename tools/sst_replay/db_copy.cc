#include "tools/sst_replay/db_copy.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace rockpool::replay {

namespace fs = std::filesystem;

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
    if (!it->is_regular_file(ec2)) continue;
    // LOCK belongs to whoever has the source open; LOGs are RocksDB's text
    // logs, not state, and the copy writes its own.
    if (name == "LOCK" || name == "LOG" || absl::StartsWith(name, "LOG.old")) continue;
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
