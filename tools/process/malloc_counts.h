// The whole-process malloc counter (malloc_counter.h), read from C++. Works
// in every binary: without :malloc_counter_lib linked in (tests, sanitizer
// builds) the counter reads as inactive and every figure as zero. Reading
// never allocates.
#ifndef ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTS_H_
#define ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTS_H_

#include "tools/process/malloc_counter.h"

namespace rockpool::process {

// The counter's figures (malloc_counter.h says what each is).
using MallocCounts = rockpool_malloc_counts;

// True if this process counts its mallocs (false under sanitizers).
bool MallocCounterActive();
MallocCounts ReadMallocCounts();
// Restarts the high-water mark of heap bytes in use from the current level.
void ResetMallocPeak();

// Where the counter forwards: the functions of the allocator that serves
// the process. All null without the counter.
using MallocForward = rockpool_malloc_forward;
MallocForward ReadMallocForward();

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTS_H_
