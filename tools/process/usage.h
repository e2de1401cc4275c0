// What a process used, for a measured window: wall and CPU time and page
// faults (getrusage), peak RSS (/proc/self/status), bytes written
// (/proc/self/io), and the malloc
// counter's figures (malloc_counts.h). Nothing here allocates: a snapshot
// can be taken inside the window it measures.
#ifndef ROCKPOOL_TOOLS_PROCESS_USAGE_H_
#define ROCKPOOL_TOOLS_PROCESS_USAGE_H_

#include <cstdint>

#include "tools/process/malloc_counts.h"

namespace rockpool::process {

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
// Bytes this process has written through write(2) and the like, to files
// and pipes alike (/proc/self/io wchar); -1 if unreadable. A long step's
// output progress.
int64_t BytesWritten();
// Restarts the VmHWM peak from the current RSS (/proc/self/clear_refs "5").
// False if the kernel refused; the peak then covers the whole child.
bool ResetPeakRss();

// A measured window, one at a time, opened and read from one thread (the
// state is this process's): OpenWindow keeps the image's peak RSS so far,
// restarts the peaks (RSS, heap in use) and takes the window's first
// snapshot; PeakRssBytes then covers the window alone if
// PeakRssIsWindowOnly says so (else the whole process).
ProcessSnapshot OpenWindow();
bool PeakRssIsWindowOnly();

// Peak RSS of this process image, from exec to now (VmHWM, taken before
// OpenWindow resets it and again now). A parent cannot use wait4's
// ru_maxrss for a child's: a posix_spawn child shares the parent's memory
// until exec and inherits its peak.
int64_t ImagePeakRssBytes();

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_USAGE_H_
