/* private_codecs_main: a program that links neither libzstd nor libz and
 * dlopens a module carrying its own copies (module.c), runs it, dlcloses it;
 * several cycles if asked.
 *
 * Usage: private_codecs_main <module.so> [--deepbind] [--cycles N] [--blocks N]
 *                            [--codecs zlib|zstd]   (default: both)
 * Prints "cycle <k>:" before each cycle's module lines; "info: cycle <k>
 * loaded at <address>" (not compared). Exit 0 if every cycle's run passed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <module.so> [--deepbind] [--cycles N] [--blocks N]\n", argv[0]);
    return 2;
  }
  int flags = RTLD_NOW | RTLD_LOCAL;
  int cycles = 1;
  int blocks = 256;
  unsigned codecs = 0; /* both */
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--deepbind") == 0) {
      flags |= RTLD_DEEPBIND;
    } else if (strcmp(argv[i], "--cycles") == 0 && i + 1 < argc) {
      cycles = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) {
      blocks = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--codecs") == 0 && i + 1 < argc) {
      ++i;
      codecs = strcmp(argv[i], "zlib") == 0 ? 1u : strcmp(argv[i], "zstd") == 0 ? 2u : 0u;
    } else {
      fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
      return 2;
    }
  }
  int failed = 0;
  for (int k = 1; k <= cycles; ++k) {
    void* h = dlopen(argv[1], flags);
    if (h == NULL) {
      printf("cycle %d: dlopen failed: %s\n", k, dlerror());
      return 1;
    }
    int (*run)(int, unsigned, unsigned) =
        (int (*)(int, unsigned, unsigned))dlsym(h, "private_codecs_run");
    if (run == NULL) {
      printf("cycle %d: no private_codecs_run: %s\n", k, dlerror());
      return 1;
    }
    struct link_map* map = NULL;
    dlinfo(h, RTLD_DI_LINKMAP, &map);
    printf("cycle %d:\n", k);
    printf("info: cycle %d loaded at %#lx\n", k, map != NULL ? (unsigned long)map->l_addr : 0ul);
    fflush(stdout);
    if (run(blocks, 11, codecs) != 0) failed = 1;
    if (dlclose(h) != 0) {
      printf("cycle %d: dlclose failed: %s\n", k, dlerror());
      failed = 1;
    }
  }
  return failed;
}
