#include "rocksdb_plugin/legacy/verbose.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace rockpool::legacy {

bool VerboseEnabled() noexcept {
  static const bool enabled = [] {
    const char* v = std::getenv("ROCKPOOL_VERBOSE");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return enabled;
}

void SayVerbose(std::string_view line) noexcept {
  if (!VerboseEnabled()) return;
  try {
    const std::string out = absl::StrCat("rockpool[", getpid(), "]: ", absl::string_view(line.data(), line.size()), "\n");
    ssize_t ignored = write(STDERR_FILENO, out.data(), out.size());
    (void)ignored;
  } catch (...) {
  }
}

}  // namespace rockpool::legacy
