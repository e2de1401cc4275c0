/* Whole-process malloc counter (what it counts: README.md beside this file).
 * The executable (or the preloaded libmalloc_counter.so) defines the C
 * allocation functions, so ELF interposition binds every caller in the
 * process to them; each counts and forwards to the next definition
 * (dlsym(RTLD_NEXT, ...)), not to glibc's __libc_* entry points, because an
 * executable is searched before preloaded objects and forwarding to glibc
 * would leave a preloaded allocator (sst_replay's --allocator) unused.
 *
 * dlsym may allocate while the targets are looked up at the first call:
 * those calls, and other threads' meanwhile, are served from a static
 * bootstrap buffer that is never freed. Stubs under sanitizers, whose
 * runtimes own malloc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/process/malloc_counter.h"
#include "tools/process/malloc_counter_internal.h"

#ifndef ROCKPOOL_NO_MALLOC_COUNTER

extern void* __libc_malloc(size_t size);
extern void __libc_free(void* ptr);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

typedef void* (*malloc_fn)(size_t);
typedef void (*free_fn)(void*);
typedef void* (*calloc_fn)(size_t, size_t);
typedef void* (*realloc_fn)(void*, size_t);
typedef void* (*memalign_fn)(size_t, size_t);
typedef size_t (*usable_fn)(void*);

static struct {
  malloc_fn malloc;
  free_fn free;
  calloc_fn calloc;
  realloc_fn realloc;
  memalign_fn memalign;
  usable_fn usable; /* NULL: the serving allocator has none; bytes in use read 0 */
} g_next;

enum { kUnresolved = 0, kResolving = 1, kReady = 2 };
static int g_state;

__thread int rockpool_counter_inside __attribute__((tls_model("initial-exec")));

static uint64_t g_calls;
static uint64_t g_bytes;
static uint64_t g_frees;
static int64_t g_live;
static int64_t g_peak;

/* The bootstrap buffer: bump allocation, a size word before each block. */
#define ARENA_BYTES (64 * 1024)
static _Alignas(64) unsigned char g_arena[ARENA_BYTES];
static size_t g_arena_used;

static void* arena_alloc(size_t alignment, size_t size) {
  if (alignment < 16) alignment = 16;
  size_t used = __atomic_load_n(&g_arena_used, __ATOMIC_RELAXED);
  for (;;) {
    const size_t start = (used + sizeof(size_t) + alignment - 1) & ~(alignment - 1);
    if (start > ARENA_BYTES || size > ARENA_BYTES - start) {
      errno = ENOMEM;
      return NULL;
    }
    if (__atomic_compare_exchange_n(&g_arena_used, &used, start + size, 1, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
      memcpy(g_arena + start - sizeof(size_t), &size, sizeof(size_t));
      return g_arena + start;
    }
  }
}

static int in_arena(const void* p) {
  const unsigned char* c = (const unsigned char*)p;
  return c >= g_arena && c < g_arena + ARENA_BYTES;
}

int rockpool_counter_in_bootstrap(const void* p) { return in_arena(p); }

static size_t arena_size(const void* p) {
  size_t size;
  memcpy(&size, (const unsigned char*)p - sizeof(size_t), sizeof(size_t));
  return size;
}

int rockpool_counter_same_object(const void* a, const void* b) {
  Dl_info ia, ib;
  if (a == NULL || b == NULL) return 0;
  if (dladdr(a, &ia) == 0 || dladdr(b, &ib) == 0) return 0;
  return ia.dli_fbase == ib.dli_fbase;
}

static void resolve(void) {
  int expected = kUnresolved;
  if (!__atomic_compare_exchange_n(&g_state, &expected, kResolving, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    return; /* being looked up (this thread, inside dlsym, or another) or done */
  }
  g_next.malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
  g_next.free = (free_fn)dlsym(RTLD_NEXT, "free");
  g_next.calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
  g_next.realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
  g_next.memalign = (memalign_fn)dlsym(RTLD_NEXT, "memalign");
  if (g_next.malloc == NULL || g_next.free == NULL || g_next.calloc == NULL ||
      g_next.realloc == NULL || g_next.memalign == NULL) {
    /* No next definition found (cannot happen with glibc linked): glibc's. */
    g_next.malloc = __libc_malloc;
    g_next.free = __libc_free;
    g_next.calloc = __libc_calloc;
    g_next.realloc = __libc_realloc;
    g_next.memalign = __libc_memalign;
  }
  /* malloc_usable_size only from the object that serves malloc: another
   * allocator's would misread the blocks. */
  g_next.usable = (usable_fn)dlsym(RTLD_NEXT, "malloc_usable_size");
  if (!rockpool_counter_same_object((const void*)g_next.usable, (const void*)g_next.malloc)) {
    g_next.usable = NULL;
  }
  rockpool_counter_resolve_new((const void*)g_next.malloc);
  __atomic_store_n(&g_state, kReady, __ATOMIC_RELEASE);
}

int rockpool_counter_ready(void) {
  int state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  if (state == kReady) return 1;
  if (state == kUnresolved) {
    resolve();
    state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  }
  return state == kReady;
}

void rockpool_counter_on_alloc(void* p, size_t requested) {
  if (p == NULL) return;
  __atomic_fetch_add(&g_calls, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_bytes, (uint64_t)requested, __ATOMIC_RELAXED);
  const int64_t usable = g_next.usable != NULL ? (int64_t)g_next.usable(p) : 0;
  const int64_t live = __atomic_add_fetch(&g_live, usable, __ATOMIC_RELAXED);
  int64_t peak = __atomic_load_n(&g_peak, __ATOMIC_RELAXED);
  while (live > peak && !__atomic_compare_exchange_n(&g_peak, &peak, live, 1, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
  }
}

void rockpool_counter_on_free(void* p) {
  __atomic_fetch_add(&g_frees, 1, __ATOMIC_RELAXED);
  const int64_t usable = g_next.usable != NULL ? (int64_t)g_next.usable(p) : 0;
  __atomic_fetch_sub(&g_live, usable, __ATOMIC_RELAXED);
}

void* malloc(size_t size) {
  if (!rockpool_counter_ready()) return arena_alloc(16, size);
  if (rockpool_counter_inside) return g_next.malloc(size);
  rockpool_counter_inside = 1;
  void* p = g_next.malloc(size);
  rockpool_counter_on_alloc(p, size);
  rockpool_counter_inside = 0;
  return p;
}

void free(void* ptr) {
  if (ptr == NULL || in_arena(ptr)) return;
  if (!rockpool_counter_ready()) return; /* another thread is looking up: leak it */
  if (rockpool_counter_inside) {
    g_next.free(ptr);
    return;
  }
  rockpool_counter_inside = 1;
  rockpool_counter_on_free(ptr);
  g_next.free(ptr);
  rockpool_counter_inside = 0;
}

void* calloc(size_t n, size_t size) {
  if (!rockpool_counter_ready()) {
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
      errno = ENOMEM;
      return NULL;
    }
    return arena_alloc(16, bytes); /* zeroed: the buffer is never reused */
  }
  if (rockpool_counter_inside) return g_next.calloc(n, size);
  rockpool_counter_inside = 1;
  void* p = g_next.calloc(n, size);
  rockpool_counter_on_alloc(p, n * size); /* no overflow: calloc succeeded */
  rockpool_counter_inside = 0;
  return p;
}

void* realloc(void* ptr, size_t size) {
  if (ptr == NULL) return malloc(size);
  if (size == 0) { /* glibc frees and returns NULL */
    free(ptr);
    return NULL;
  }
  if (in_arena(ptr)) {
    void* p = malloc(size);
    const size_t old = arena_size(ptr);
    if (p != NULL) memcpy(p, ptr, old < size ? old : size);
    return p;
  }
  if (!rockpool_counter_ready()) {
    errno = ENOMEM; /* a block from the serving allocator while another thread looks it up */
    return NULL;
  }
  if (rockpool_counter_inside) return g_next.realloc(ptr, size);
  rockpool_counter_inside = 1;
  const int64_t old_usable = g_next.usable != NULL ? (int64_t)g_next.usable(ptr) : 0;
  void* p = g_next.realloc(ptr, size);
  if (p != NULL) { /* else ptr is untouched */
    __atomic_fetch_add(&g_frees, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&g_live, old_usable, __ATOMIC_RELAXED);
    rockpool_counter_on_alloc(p, size);
  }
  rockpool_counter_inside = 0;
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
  if (!rockpool_counter_ready()) return arena_alloc(alignment, size);
  if (rockpool_counter_inside) return g_next.memalign(alignment, size);
  rockpool_counter_inside = 1;
  void* p = g_next.memalign(alignment, size);
  rockpool_counter_on_alloc(p, size);
  rockpool_counter_inside = 0;
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

/* Through memalign: not every allocator defines these two (jemalloc has no
 * pvalloc), and another object's would hand out blocks this one frees. */
void* valloc(size_t size) { return memalign((size_t)sysconf(_SC_PAGESIZE), size); }

void* pvalloc(size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  if (rounded < size) {
    errno = ENOMEM;
    return NULL;
  }
  return memalign(page, rounded);
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
  /* volatile: the compiler may not drop the malloc/free pair it can see. */
  void* volatile p = global_malloc(24);
  const uint64_t after = __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
  free(p);
  return after > before;
}

void rockpool_malloc_forward_read(struct rockpool_malloc_forward* out) {
  memset(out, 0, sizeof(*out));
  if (!rockpool_counter_ready()) return;
  out->malloc = (const void*)g_next.malloc;
  out->free = (const void*)g_next.free;
  out->calloc = (const void*)g_next.calloc;
  out->realloc = (const void*)g_next.realloc;
  out->memalign = (const void*)g_next.memalign;
  out->usable_size = (const void*)g_next.usable;
  rockpool_counter_new_targets(&out->operator_new, &out->operator_new_counted);
  out->bootstrap_bytes = __atomic_load_n(&g_arena_used, __ATOMIC_RELAXED);
}

#else /* ROCKPOOL_NO_MALLOC_COUNTER */

void rockpool_malloc_counts_read(struct rockpool_malloc_counts* out) {
  out->calls = out->bytes = out->frees = 0;
  out->live = out->peak = 0;
}
void rockpool_malloc_reset_peak(void) {}
int rockpool_malloc_counter_active(void) { return 0; }
void rockpool_malloc_forward_read(struct rockpool_malloc_forward* out) {
  memset(out, 0, sizeof(*out));
}

#endif
