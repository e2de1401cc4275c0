// --allocator, the parent's side: which malloc the children run under
// (values: README.md beside this file, "Under the allocator you run"). The
// parent preloads the chosen object; each child checks what serves its
// malloc (allocator_check.h).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rockpool::replay {

// An allocator sst_replay knows by name.
struct NamedAllocator {
  std::string name;     // "glibc", "jemalloc", "tcmalloc"
  std::string path;     // the object to preload; empty for glibc
  std::string package;  // the Debian package that installs it
};

// glibc, jemalloc, tcmalloc, in that order (the order of --allocator=all).
const std::vector<NamedAllocator>& NamedAllocators();

// One allocator the children run under.
struct AllocatorChoice {
  std::string name;     // a NamedAllocator's name, or the file name of a PATH
  std::string preload;  // absolute path LD_PRELOAD gets; empty: nothing preloaded
};

struct AllocatorSelection {
  std::vector<AllocatorChoice> allocators;  // in run order, at least one
  std::vector<std::string> notes;           // named allocators --allocator=all left out
};

// The --allocator value checked: InvalidArgument, one line naming the flag,
// for an unknown name, a named allocator not installed (naming its
// package), a PATH that is missing, unreadable or not an ELF shared object
// defining malloc, and anything but glibc in a sanitizer build.
absl::StatusOr<AllocatorSelection> SelectAllocators(std::string_view flag);
// The same against another table of named allocators (tests).
absl::StatusOr<AllocatorSelection> SelectAllocators(std::string_view flag,
                                                    const std::vector<NamedAllocator>& named);

// OK if `path` is a readable ELF shared object for this machine whose
// dynamic symbols define malloc; else why not (no flag in the message).
absl::Status CheckAllocatorObject(const std::string& path);

// A child's LD_PRELOAD: the allocator first, so that it is the first object
// searched after the executable, then whatever the user preloaded
// (tools/process/preload_list.h: ':'-joined, the allocator once).
std::string ChildPreload(const std::string& allocator, std::string_view inherited);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_H_
