// Which allocator a child process runs under, the child's side: is the
// allocator that serves this process's malloc (active_allocator.h) the one
// its parent chose (allocator_choice.h)? sst_replay's --allocator
// (tools/sst_replay/README.md, "Under the allocator you run").
#ifndef ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHECK_H_
#define ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHECK_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "tools/process/active_allocator.h"

namespace rockpool::process {

// InvalidArgument, one line starting "<flag>=<requested>: ", if `active`
// is not the allocator asked for (glibc: glibc's, or the runtime of a
// sanitizer build; otherwise the object `preload` names), or if its own
// check failed. Adds where /proc/self/maps shows a preloaded object to the
// evidence.
absl::Status CheckActiveAllocator(std::string_view flag, const std::string& requested,
                                  const std::string& preload, ActiveAllocator* active);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHECK_H_
