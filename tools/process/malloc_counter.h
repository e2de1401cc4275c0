/* C interface of the whole-process malloc counter (malloc_counter.c). */
#ifndef ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_H_
#define ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rockpool_malloc_counts {
  uint64_t calls; /* calls that returned memory (realloc counts as one) */
  uint64_t bytes; /* bytes those calls asked for */
  uint64_t frees; /* free calls on non-null pointers (+1 per moving realloc) */
  int64_t live;   /* usable bytes in use now */
  int64_t peak;   /* high-water mark of `live` since the last reset */
};

void rockpool_malloc_counts_read(struct rockpool_malloc_counts* out);
/* Sets the high-water mark to the bytes in use now. */
void rockpool_malloc_reset_peak(void);
/* 1 if the process's malloc is the counter's and counts calls. */
int rockpool_malloc_counter_active(void);

/* Where the counter forwards: the functions of the allocator that really
 * serves the process (all NULL when the counter is off). */
struct rockpool_malloc_forward {
  const void* malloc;
  const void* free;
  const void* calloc;
  const void* realloc;
  const void* memalign;
  const void* usable_size;  /* malloc_usable_size; NULL if that allocator has none */
  const void* operator_new; /* the operator new(size_t) the executable's forwards to */
  int operator_new_counted; /* 1: the allocator's own, counted by the executable's */
  uint64_t bootstrap_bytes; /* served from the static buffer while looking them up */
};
void rockpool_malloc_forward_read(struct rockpool_malloc_forward* out);

#ifdef __cplusplus
}
#endif

#endif /* ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_H_ */
