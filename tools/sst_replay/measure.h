// Whole-process measurements for one replay window: wall and CPU time, page
// faults and peak RSS (getrusage), and the malloc counter's figures
// (malloc_counter_shim.h). Taking a snapshot never allocates.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_MEASURE_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_MEASURE_H_

#include <cstdint>

namespace rockpool::replay {

struct MallocCounts {
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t frees = 0;
  int64_t live = 0;
  int64_t peak = 0;
};

// True if this process counts its mallocs (false under sanitizers).
bool MallocCounterActive();
MallocCounts ReadMallocCounts();
// Restarts the high-water mark of heap bytes in use from the current level.
void ResetMallocPeak();

// Where the malloc counter forwards: the functions of the allocator that
// serves the process. All null without the counter (sanitizer builds, tests).
struct MallocForward {
  const void* malloc = nullptr;
  const void* free = nullptr;
  const void* calloc = nullptr;
  const void* realloc = nullptr;
  const void* memalign = nullptr;
  const void* usable_size = nullptr;
  const void* operator_new = nullptr;
  bool operator_new_counted = false;  // the allocator's own operator new
  uint64_t bootstrap_bytes = 0;
};
MallocForward ReadMallocForward();

struct ProcessSnapshot {
  int64_t wall_ns = 0;  // steady clock
  int64_t cpu_ns = 0;   // user + system, all threads
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  MallocCounts malloc;
};

ProcessSnapshot TakeSnapshot();

// Peak resident set size of this process image (/proc/self/status VmHWM;
// getrusage's ru_maxrss is no good here: it survives exec, and a child
// started with posix_spawn inherits its parent's peak). -1 if unreadable.
int64_t PeakRssBytes();
// Restarts the VmHWM peak from the current RSS (/proc/self/clear_refs "5").
// False if the kernel refused; the peak then covers the whole child.
bool ResetPeakRss();

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_MEASURE_H_
