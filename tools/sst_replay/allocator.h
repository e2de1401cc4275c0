// --allocator: which malloc the stock and pooled children run under. The
// parent picks the objects to preload (LD_PRELOAD in each child's
// environment, runner.cc); each child then checks which allocator really
// serves its malloc (active_allocator.h) and fails the run when it is not
// the one asked for.
//
//   glibc     nothing preloaded (the default)
//   jemalloc  /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 (Debian's libjemalloc2)
//   tcmalloc  /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 (libtcmalloc-minimal4)
//   PATH      any ELF shared object defining malloc (a value with a '/')
//   all       glibc and every named one installed, one after the other
//
// Sanitizer builds refuse all but glibc: their runtime must serve malloc
// and be the first object loaded.
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

// True in sanitizer builds (AddressSanitizer, ThreadSanitizer).
bool SanitizerBuild();

// OK if `path` is a readable ELF shared object for this machine whose
// dynamic symbols define malloc; else why not (no flag in the message).
absl::Status CheckAllocatorObject(const std::string& path);

// A child's LD_PRELOAD: the allocator first, so that it is the first object
// searched after the executable, then whatever the user preloaded.
std::string ChildPreload(const std::string& allocator, std::string_view inherited);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_ALLOCATOR_H_
