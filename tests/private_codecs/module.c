/* libprivate_codecs.so: a module that bundles its own zstd and zlib
 * (Debian's source packages, compiled -fPIC into it with default visibility,
 * so its calls to them go through its PLT: no -Bsymbolic), dlopened by
 * main.c, a program without libzstd/libz. tests/private_codecs/build.sh
 * builds it; the copies are patched to be told apart from the system's
 * (ZSTD_versionNumber() 10599, zlibVersion() "1.2.13.rockpool-private",
 * level 3 / level 6 parameters that change the compressed bytes) and
 * allocate through private_malloc below.
 *
 * private_codecs_run() runs RocksDB 7.8.3's per-block codec calls
 * (tests/rocksdb_plugin/legacy/processes/block_codecs.h) and checks that
 * every context it is handed was allocated by its own copy. Printed lines
 * ("module ..."), compared across runs by run.sh:
 *   module versions: zstd=<ZSTD_versionNumber()> zlib=<zlibVersion()>
 *   module blocks=N zlib=<digest>/<bytes> zstd=<digest>/<bytes>   (or "module error: ...")
 *   module contexts: <n> checked, made by: <own|...>; allocator live=<n> foreign_frees=<n>
 * and, not compared ("info:"), where its codec references resolve (dladdr).
 *
 * With -DSYSTEM_TWIN: the same driver against the system's headers and
 * libraries (libsystem_twin.so), no private allocator: the digests a
 * silent swap to the system copy would give.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "tests/private_codecs/private_alloc.h"
#include "tests/rocksdb_plugin/legacy/processes/block_codecs.h"

#define VISIBLE __attribute__((visibility("default")))

/* --- the private allocator: a table of live allocations ------------------ */
#define PRIVATE_SLOTS 4096
static void* g_live[PRIVATE_SLOTS];
static int g_live_count;
static int g_foreign_frees;
static int g_checked;

static void Remember(void* p) {
  if (p == NULL) return;
  for (int i = 0; i < PRIVATE_SLOTS; ++i) {
    if (g_live[i] == NULL) {
      g_live[i] = p;
      ++g_live_count;
      return;
    }
  }
}
void* private_malloc(size_t n) {
  void* p = malloc(n);
  Remember(p);
  return p;
}
void* private_calloc(size_t n, size_t size) {
  void* p = calloc(n, size);
  Remember(p);
  return p;
}
void private_free(void* p) {
  if (p == NULL) return;
  for (int i = 0; i < PRIVATE_SLOTS; ++i) {
    if (g_live[i] == p) {
      g_live[i] = NULL;
      --g_live_count;
      free(p);
      return;
    }
  }
  ++g_foreign_frees; /* not ours: someone else's context came back to our copy */
  free(p);
}
int private_owns(const void* p) {
  if (p == NULL) return 0;
  for (int i = 0; i < PRIVATE_SLOTS; ++i) {
    if (g_live[i] == p) return 1;
  }
  return 0;
}

#ifndef SYSTEM_TWIN
/* zlib's allocation functions (built with -DMY_ZCALLOC; zutil.h declares
 * them, hidden with -DHAVE_HIDDEN). */
PRIVATE_HIDDEN voidpf zcalloc(voidpf opaque, unsigned items, unsigned size) {
  (void)opaque;
  return private_malloc((size_t)items * size);
}
PRIVATE_HIDDEN void zcfree(voidpf opaque, voidpf ptr) {
  (void)opaque;
  private_free(ptr);
}

static const char* Who(const void* p) {
  Dl_info info;
  if (dladdr(p, &info) && info.dli_fname != NULL) return info.dli_fname;
  return "?";
}
static int Check(const void* what, const char* name, char* why) {
  ++g_checked;
  if (private_owns(what)) return 0;
  snprintf(why, 256, "%s %p was not allocated by the module's copy", name, what);
  return 1;
}
static int CheckDeflate(z_stream* s, char* why) { return Check(s->state, "deflate state", why); }
static int CheckInflate(z_stream* s, char* why) { return Check(s->state, "inflate state", why); }
static int CheckCCtx(ZSTD_CCtx* c, char* why) { return Check(c, "ZSTD_CCtx", why); }
static int CheckDCtx(ZSTD_DCtx* d, char* why) { return Check(d, "ZSTD_DCtx", why); }
#define HOOKS_INIT \
  { CheckDeflate, CheckInflate, CheckCCtx, CheckDCtx, 0 }
#else
static const char* Who(const void* p) {
  Dl_info info;
  return dladdr(p, &info) && info.dli_fname != NULL ? info.dli_fname : "?";
}
#define HOOKS_INIT \
  { NULL, NULL, NULL, NULL, 0 }
#endif

/* codecs: BLOCK_CODECS_ZLIB | BLOCK_CODECS_ZSTD, 0 = both. */
VISIBLE int private_codecs_run(int blocks, unsigned seed, unsigned codecs) {
  BlockCodecsHooks hooks = HOOKS_INIT;
  hooks.codecs = codecs;
  g_checked = 0;
  g_foreign_frees = 0;
  printf("module versions: zstd=%u zlib=%s\n", ZSTD_versionNumber(), zlibVersion());
  BlockCodecsResult r;
  const int failed = BlockCodecsRun(blocks, seed, &hooks, &r);
  BlockCodecsPrint(stdout, "module", &r);
  printf("module contexts: %d checked; allocator live=%d foreign_frees=%d\n", g_checked,
         g_live_count, g_foreign_frees);
  printf("info: ZSTD_createCCtx -> %s, ZSTD_compress_usingDict -> %s, ZSTD_versionNumber -> %s\n",
         Who((const void*)&ZSTD_createCCtx), Who((const void*)&ZSTD_compress_usingDict),
         Who((const void*)&ZSTD_versionNumber));
  printf("info: deflateInit2_ -> %s, deflate -> %s, inflateInit2_ -> %s, zlibVersion -> %s\n",
         Who((const void*)&deflateInit2_), Who((const void*)&deflate),
         Who((const void*)&inflateInit2_), Who((const void*)&zlibVersion));
  fflush(stdout);
  return failed;
}
