// Whole-process measurements for one replay window: wall and CPU time, page
// faults and peak RSS (getrusage), and the malloc counter's figures
// (malloc_counter_shim.h). Taking a snapshot never allocates.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_MEASURE_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_MEASURE_H_

#include <cstdint>

#include "tools/sst_replay/malloc_counter_shim.h"

namespace rockpool::replay {

// The malloc counter's figures (malloc_counter_shim.h says what each is).
using MallocCounts = rockpool_malloc_counts;

// True if this process counts its mallocs (false under sanitizers).
bool MallocCounterActive();
MallocCounts ReadMallocCounts();
// Restarts the high-water mark of heap bytes in use from the current level.
void ResetMallocPeak();

// Where the malloc counter forwards: the functions of the allocator that
// serves the process. All null without the counter (sanitizer builds, tests).
using MallocForward = rockpool_malloc_forward;
MallocForward ReadMallocForward();

struct ProcessSnapshot {
  int64_t wall_ns = 0;  // steady clock
  int64_t cpu_ns = 0;   // user + system, all threads
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  MallocCounts malloc{};
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
