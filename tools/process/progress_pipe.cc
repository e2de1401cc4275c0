#include "tools/process/progress_pipe.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace rockpool::process {

void ProgressSink::Report(double fraction) {
  const int permille = std::clamp(static_cast<int>(fraction * 1000), 0, 1000);
  if (fd_ < 0 || permille == last_) return;
  last_ = permille;
  char line[8];
  const int n = std::snprintf(line, sizeof(line), "%d\n", permille);
  while (fd_ >= 0 && ::write(fd_, line, static_cast<size_t>(n)) < 0) {
    if (errno != EINTR) fd_ = -1;
  }
}

void FollowProgress(int fd, absl::FunctionRef<void(double fraction)> on_progress) {
  int permille = 0;
  char c;
  for (ssize_t n; (n = ::read(fd, &c, 1)) != 0;) {
    if (n < 0 && errno != EINTR) return;
    if (n < 0) continue;
    if (c != '\n') {
      permille = permille * 10 + (c - '0');
    } else {
      on_progress(permille / 1000.0);
      permille = 0;
    }
  }
}

}  // namespace rockpool::process
