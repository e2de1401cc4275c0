// --allocator, the child's side: which allocator really serves this
// process's malloc, and the evidence (README.md beside this file, "Under the
// allocator you run").
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ACTIVE_ALLOCATOR_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ACTIVE_ALLOCATOR_H_

#include <string>

#include "absl/status/status.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// The allocator that serves this process's malloc, and how that was seen.
struct ActiveAllocator {
  std::string name;      // "glibc", "jemalloc", "tcmalloc", "sanitizer runtime", or a file name
  std::string version;   // "2.36", "5.3.0-0-g54eaed1...", "gperftools 2.10"; may be empty
  std::string object;    // the object its malloc comes from, as the loader names it
  std::string evidence;  // what showed it (one line)
  std::string problem;   // non-empty: the check that failed
};
ActiveAllocator DetectActiveAllocator();

// InvalidArgument naming --allocator=`requested` if `active` is not the
// allocator asked for (glibc: glibc's, or the runtime of a sanitizer build;
// otherwise the object `preload` names), or if its own check failed. Adds
// where /proc/self/maps shows a preloaded object to the evidence.
absl::Status CheckActiveAllocator(const std::string& requested, const std::string& preload,
                                  ActiveAllocator* active);

// The result's facts: allocator, allocator_version, allocator_object,
// allocator_evidence.
void AddAllocatorFacts(const ActiveAllocator& active, RunResult* result);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ACTIVE_ALLOCATOR_H_
