/* C interface of the whole-process malloc counter (malloc_counter_shim.c). */
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_MALLOC_COUNTER_SHIM_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_MALLOC_COUNTER_SHIM_H_

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

#ifdef __cplusplus
}
#endif

#endif /* ROCKPOOL_TOOLS_SST_REPLAY_MALLOC_COUNTER_SHIM_H_ */
