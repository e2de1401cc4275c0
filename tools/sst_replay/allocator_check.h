// --allocator, the child's side: is the allocator that serves this child's
// malloc (tools/process/active_allocator.h) the one asked for? (README.md
// beside this file, "Under the allocator you run".)
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_CHECK_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "tools/process/active_allocator.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// InvalidArgument naming --allocator=`requested` if `active` is not the
// allocator asked for (glibc: glibc's, or the runtime of a sanitizer build;
// otherwise the object `preload` names), or if its own check failed. Adds
// where /proc/self/maps shows a preloaded object to the evidence.
absl::Status CheckActiveAllocator(const std::string& requested, const std::string& preload,
                                  process::ActiveAllocator* active);

// The result's facts: allocator, allocator_version, allocator_object,
// allocator_evidence.
void AddAllocatorFacts(const process::ActiveAllocator& active, RunResult* result);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_CHECK_H_
