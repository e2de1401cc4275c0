// A child process started and measured by its parent, whole: the wall time
// from spawn to reaped, and wait4's CPU time and page faults of that child
// alone. (Not its peak RSS: wait4's ru_maxrss is the largest of every child
// reaped so far, so a child reports its own.)
#ifndef ROCKPOOL_TOOLS_PROCESS_MEASURED_CHILD_H_
#define ROCKPOOL_TOOLS_PROCESS_MEASURED_CHILD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace rockpool::process {

struct ChildOptions {
  std::vector<std::string> argv;  // argv[0]: the executable's path
  // An object put first in the child's LD_PRELOAD, ahead of the inherited
  // entries (preload_list.h); empty: LD_PRELOAD as inherited.
  std::string preload;
  // The parent's environment goes to the child without the variables whose
  // names start with one of these.
  std::vector<std::string> unset_prefixes;
  // (parent's fd, child's fd) pairs, duplicated into the child in order
  // (the child's copy is inheritable even where the parent's is CLOEXEC).
  std::vector<std::pair<int, int>> fds;
};

struct ChildUsage {
  int status = 0;  // as wait4 reports it (WIFEXITED, WEXITSTATUS, ...)
  int64_t wall_ns = 0;
  int64_t cpu_ns = 0;  // user + system
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
};

// Starts the child, runs `while_running` (it returns when the parent has
// nothing more to do alongside the child, say when a pipe the child writes
// is closed), then waits for the child. Errors: the child could not be
// started (`while_running` is then not run) or waited for.
absl::StatusOr<ChildUsage> RunMeasuredChild(const ChildOptions& options,
                                            absl::FunctionRef<void()> while_running);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_MEASURED_CHILD_H_
