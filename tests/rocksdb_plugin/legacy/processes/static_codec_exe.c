/* static_codec_exe: an executable that links zlib and zstd statically
 * (Debian's libz.a and libzstd.a, whole archives) and exports them
 * (-rdynamic; -no-pie because Debian's archives are not PIC), plus
 * libcodec_user.so, a shared library linked against libz.so.1/libzstd.so.1.
 * Both run RocksDB 7.8.3's per-block codec calls (block_codecs.h); every
 * codec call of the library binds to the executable's copy (the executable
 * is first in the lookup scope), with or without librockpool_interpose.so
 * preloaded. static_codec_exe_test.py runs it both ways.
 *
 * Usage: static_codec_exe [blocks]   (default 512)
 * Prints on stdout:
 *   exe blocks=N zlib=<digest>/<bytes> zstd=<digest>/<bytes>
 *   lib blocks=N zlib=<digest>/<bytes> zstd=<digest>/<bytes>
 *   bindings: all 13 reach the executable's copy
 *     (or "bindings: <name> -> <object>, ..." for each that does not)
 * Exit status 0 if every block round-tripped, 1 otherwise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "tests/rocksdb_plugin/legacy/processes/block_codecs.h"
#include "tests/rocksdb_plugin/legacy/processes/codec_user.h"

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? atoi(argv[1]) : 512;

  BlockCodecsResult r;
  const int exe_failed = BlockCodecsRun(blocks, 7, NULL, &r);
  BlockCodecsPrint(stdout, "exe", &r);
  fflush(stdout);
  const int lib_failed = codec_user_run(blocks, 7);

  /* The executable's own definitions, in CODEC_USER_FUNCTION_NAMES order. */
  const void* const mine[] = CODEC_USER_FUNCTION_ADDRESSES;
  static const char* const kNames[] = CODEC_USER_FUNCTION_NAMES;
  const int n = (int)(sizeof(mine) / sizeof(mine[0]));
  const void* theirs[32];
  const int m = codec_user_functions(theirs, 32);
  int wrong = 0;
  for (int i = 0; i < n && i < m; ++i) {
    if (theirs[i] == mine[i]) continue;
    Dl_info info;
    const char* where = dladdr(theirs[i], &info) && info.dli_fname ? info.dli_fname : "?";
    printf("%s%s -> %s", wrong++ ? ", " : "bindings: ", kNames[i], where);
  }
  if (wrong == 0 && m == n) {
    printf("bindings: all %d reach the executable's copy\n", n);
  } else {
    printf("\n");
  }
  return exe_failed || lib_failed ? 1 : 0;
}
