// Which allocator really serves this process's malloc, and the evidence: the
// object malloc resolves to (through the malloc counter's forward when it is
// linked in), then a probe of that allocator's own statistics (jemalloc's
// thread.allocated, tcmalloc's GetOwnership, glibc's mallinfo2) around a
// 64 KiB malloc through the process's malloc.
#ifndef ROCKPOOL_TOOLS_PROCESS_ACTIVE_ALLOCATOR_H_
#define ROCKPOOL_TOOLS_PROCESS_ACTIVE_ALLOCATOR_H_

#include <string>

namespace rockpool::process {

// The allocator that serves this process's malloc, and how that was seen.
struct ActiveAllocator {
  std::string name;      // "glibc", "jemalloc", "tcmalloc", "sanitizer runtime", or a file name
  std::string version;   // "2.36", "5.3.0-0-g54eaed1...", "gperftools 2.10"; may be empty
  std::string object;    // the object its malloc comes from, as the loader names it
  std::string evidence;  // what showed it (one line)
  std::string problem;   // non-empty: the check that failed
};
ActiveAllocator DetectActiveAllocator();

// "jemalloc 5.3.0 (/usr/lib/x86_64-linux-gnu/libjemalloc.so.2)"
std::string DescribeAllocator(const ActiveAllocator& active);

// True in sanitizer builds (AddressSanitizer, ThreadSanitizer), whose
// runtime serves malloc and must load first.
bool SanitizerBuild();

// True if both paths name one file (device and inode).
bool SameFile(const std::string& a, const std::string& b);

// The path /proc/self/maps shows for `path`'s file, empty if not mapped.
std::string MappedAs(const std::string& path);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_ACTIVE_ALLOCATOR_H_
