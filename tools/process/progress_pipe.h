// A child process's progress told to its parent through a pipe: the fraction
// done, per mille, one "NNN\n" line per change.
#ifndef ROCKPOOL_TOOLS_PROCESS_PROGRESS_PIPE_H_
#define ROCKPOOL_TOOLS_PROCESS_PROGRESS_PIPE_H_

#include "absl/functional/function_ref.h"

namespace rockpool::process {

// The child's end, on `fd` (negative: none). Never allocates (it runs inside
// measured windows); stops at the first failed write (the parent is gone).
class ProgressSink {
 public:
  explicit ProgressSink(int fd) : fd_(fd) {}
  void Report(double fraction);  // clamped to 0..1

 private:
  int fd_;
  int last_ = -1;
};

// The parent's end: each fraction reported on `fd`, until every writer has
// closed it.
void FollowProgress(int fd, absl::FunctionRef<void(double fraction)> on_progress);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_PROGRESS_PIPE_H_
