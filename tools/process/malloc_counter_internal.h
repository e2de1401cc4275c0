/* Between the two halves of the malloc counter: the C allocation functions
 * (malloc_counter.c) and operator new and delete
 * (malloc_counter_new.cc). Not for other code. */
#ifndef ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_INTERNAL_H_
#define ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_INTERNAL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero while this thread runs the serving allocator's code for the
 * counter. An allocator may allocate from within (tcmalloc's
 * malloc_usable_size creates its extension object with operator new): such
 * nested calls are forwarded uncounted, without asking for their size.
 * Initial-exec: its first use in a thread must not call __tls_get_addr,
 * which may allocate (the executable and preloaded objects have static TLS). */
extern __thread int rockpool_counter_inside __attribute__((tls_model("initial-exec")));

/* 1 once the forward targets are known (looks them up at the first call);
 * 0 while they are being looked up. */
int rockpool_counter_ready(void);
/* Counts an allocation of `requested` bytes (nothing for NULL) / a free. */
void rockpool_counter_on_alloc(void* p, size_t requested);
void rockpool_counter_on_free(void* p);
/* 1 if `p` came from the bootstrap buffer (free ignores those). */
int rockpool_counter_in_bootstrap(const void* p);
/* 1 if both addresses lie in the same loaded object. */
int rockpool_counter_same_object(const void* a, const void* b);
/* Looks up the next operator new and delete; each is counted by the
 * executable's definition only when it lives in `malloc_target`'s object
 * (an allocator's own, which does not call malloc); libstdc++'s call malloc,
 * counted there. */
void rockpool_counter_resolve_new(const void* malloc_target);
void rockpool_counter_new_targets(const void** operator_new, int* counted);

#ifdef __cplusplus
}
#endif

#endif /* ROCKPOOL_TOOLS_PROCESS_MALLOC_COUNTER_INTERNAL_H_ */
