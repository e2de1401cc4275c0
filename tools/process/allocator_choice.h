// Which allocator a child process runs under, the parent's side: a flag's
// value (a named allocator, "all", or the path of a shared object) checked
// and turned into the objects to preload. The parent puts the chosen object
// first in the child's LD_PRELOAD (preload_list.h); the child checks what
// serves its malloc (allocator_check.h). sst_replay's --allocator
// (tools/sst_replay/README.md, "Under the allocator you run").
#ifndef ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHOICE_H_
#define ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHOICE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rockpool::process {

// An allocator known by name.
struct NamedAllocator {
  std::string name;     // "glibc", "jemalloc", "tcmalloc"
  std::string path;     // the object to preload; empty for glibc
  std::string package;  // the Debian package that installs it
};

// glibc, jemalloc, tcmalloc, in that order (the order of "all").
const std::vector<NamedAllocator>& NamedAllocators();

// One allocator the children run under.
struct AllocatorChoice {
  std::string name;     // a NamedAllocator's name, or the file name of a PATH
  std::string preload;  // absolute path LD_PRELOAD gets; empty: nothing preloaded
};

struct AllocatorSelection {
  std::vector<AllocatorChoice> allocators;  // in run order, at least one
  std::vector<std::string> notes;           // named allocators "all" left out
};

// Who asks, for the messages: the flag ("--allocator") and the program
// whose children are preloaded ("sst_replay").
struct AllocatorFlag {
  std::string_view flag;
  std::string_view program;
};

// The flag's value checked: InvalidArgument, one line starting
// "<flag>=<value>: ", for an unknown name, a named allocator not installed
// (naming its package), a PATH that is missing, unreadable or not an ELF
// shared object defining malloc, and anything but glibc in a sanitizer
// build. `named`: another table of named allocators (tests).
absl::StatusOr<AllocatorSelection> SelectAllocators(
    const AllocatorFlag& flag, std::string_view value,
    const std::vector<NamedAllocator>& named = NamedAllocators());

// OK if `path` is a readable ELF shared object for this machine whose
// dynamic symbols define malloc; else why not (no flag in the message;
// `program` names this process).
absl::Status CheckAllocatorObject(const std::string& path, std::string_view program);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_ALLOCATOR_CHOICE_H_
