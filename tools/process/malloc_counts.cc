#include "tools/process/malloc_counts.h"

// Weak: defined only when //tools/process:malloc_counter_lib is linked in.
extern "C" {
void rockpool_malloc_counts_read(struct rockpool_malloc_counts* out) __attribute__((weak));
void rockpool_malloc_reset_peak(void) __attribute__((weak));
int rockpool_malloc_counter_active(void) __attribute__((weak));
void rockpool_malloc_forward_read(struct rockpool_malloc_forward* out) __attribute__((weak));
}

namespace rockpool::process {

bool MallocCounterActive() {
  return rockpool_malloc_counter_active != nullptr && rockpool_malloc_counter_active() != 0;
}

MallocCounts ReadMallocCounts() {
  MallocCounts counts{};
  if (rockpool_malloc_counts_read != nullptr) rockpool_malloc_counts_read(&counts);
  return counts;
}

MallocForward ReadMallocForward() {
  MallocForward forward{};
  if (rockpool_malloc_forward_read != nullptr) rockpool_malloc_forward_read(&forward);
  return forward;
}

void ResetMallocPeak() {
  if (rockpool_malloc_reset_peak != nullptr) rockpool_malloc_reset_peak();
}

}  // namespace rockpool::process
