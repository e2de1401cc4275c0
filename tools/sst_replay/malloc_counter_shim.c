/* Whole-process malloc counter: rockpool's sst_replay defines the C
 * allocation functions in its own executable. ELF symbol interposition makes
 * every caller in the process (libstdc++'s operator new, librocksdb, libzstd,
 * libz, glibc itself) bind to these definitions, which count and forward to
 * glibc's allocator through its exported __libc_* entry points. No
 * LD_PRELOAD, no dlsym, no bootstrap problem: the counters are zero-
 * initialised atomics, usable before any constructor runs.
 *
 * Counted per call that returns memory: the bytes the caller asked for
 * (realloc: its new size) and one call. Bytes in use are tracked with
 * malloc_usable_size() (the only size free() can know), with a high-water
 * mark that callers can reset.
 *
 * Built as stubs (counter inactive) under sanitizers, whose runtimes own
 * malloc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tools/sst_replay/malloc_counter_shim.h"

#ifndef ROCKPOOL_NO_MALLOC_COUNTER

extern void* __libc_malloc(size_t size);
extern void __libc_free(void* ptr);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void* __libc_valloc(size_t size);
extern void* __libc_pvalloc(size_t size);

static uint64_t g_calls;
static uint64_t g_bytes;
static uint64_t g_frees;
static int64_t g_live;
static int64_t g_peak;

static inline void on_alloc(void* p, size_t requested) {
  __atomic_fetch_add(&g_calls, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_bytes, (uint64_t)requested, __ATOMIC_RELAXED);
  const int64_t usable = (int64_t)malloc_usable_size(p);
  const int64_t live = __atomic_add_fetch(&g_live, usable, __ATOMIC_RELAXED);
  int64_t peak = __atomic_load_n(&g_peak, __ATOMIC_RELAXED);
  while (live > peak && !__atomic_compare_exchange_n(&g_peak, &peak, live, 1, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
  }
}

static inline void on_free(void* p) {
  __atomic_fetch_add(&g_frees, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&g_live, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
}

void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  if (p != NULL) on_alloc(p, size);
  return p;
}

void free(void* ptr) {
  if (ptr == NULL) return;
  on_free(ptr);
  __libc_free(ptr);
}

void* calloc(size_t n, size_t size) {
  void* p = __libc_calloc(n, size);
  if (p != NULL) on_alloc(p, n * size); /* no overflow: calloc succeeded */
  return p;
}

void* realloc(void* ptr, size_t size) {
  if (ptr == NULL) return malloc(size);
  if (size == 0) { /* glibc frees and returns NULL */
    free(ptr);
    return NULL;
  }
  const int64_t old_usable = (int64_t)malloc_usable_size(ptr);
  void* p = __libc_realloc(ptr, size);
  if (p == NULL) return NULL; /* ptr untouched */
  __atomic_fetch_add(&g_frees, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&g_live, old_usable, __ATOMIC_RELAXED);
  on_alloc(p, size);
  return p;
}

void* reallocarray(void* ptr, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(ptr, bytes);
}

void* memalign(size_t alignment, size_t size) {
  void* p = __libc_memalign(alignment, size);
  if (p != NULL) on_alloc(p, size);
  return p;
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  void* p = memalign(alignment, size);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t size) {
  void* p = __libc_valloc(size);
  if (p != NULL) on_alloc(p, size);
  return p;
}

void* pvalloc(size_t size) {
  void* p = __libc_pvalloc(size);
  if (p != NULL) on_alloc(p, size);
  return p;
}

void rockpool_malloc_counts_read(struct rockpool_malloc_counts* out) {
  out->calls = __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
  out->bytes = __atomic_load_n(&g_bytes, __ATOMIC_RELAXED);
  out->frees = __atomic_load_n(&g_frees, __ATOMIC_RELAXED);
  out->live = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
  out->peak = __atomic_load_n(&g_peak, __ATOMIC_RELAXED);
}

void rockpool_malloc_reset_peak(void) {
  __atomic_store_n(&g_peak, __atomic_load_n(&g_live, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

int rockpool_malloc_counter_active(void) {
  /* The process-wide definition of malloc must be this one, and a call
   * through it must be counted. */
  void* (*global_malloc)(size_t) = (void* (*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
  if (global_malloc != &malloc) return 0;
  const uint64_t before = __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
  void* p = global_malloc(24);
  const uint64_t after = __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
  free(p);
  return after > before;
}

#else /* ROCKPOOL_NO_MALLOC_COUNTER */

void rockpool_malloc_counts_read(struct rockpool_malloc_counts* out) {
  out->calls = out->bytes = out->frees = 0;
  out->live = out->peak = 0;
}
void rockpool_malloc_reset_peak(void) {}
int rockpool_malloc_counter_active(void) { return 0; }

#endif
