/* libcodec_user.so: a shared library linked against Debian's libz.so.1 and
 * libzstd.so.1 (like a RocksDB build or any plugin would be), running
 * RocksDB 7.8.3's per-block codec calls (block_codecs.h). Loaded (DT_NEEDED)
 * by static_codec_exe, an executable that links zlib and zstd statically and
 * exports them: every codec call of this library then binds to the
 * executable's copy, with or without librockpool_interpose.so preloaded
 * (the executable comes first in the global lookup scope).
 */
#include "tests/rocksdb_plugin/legacy/processes/codec_user.h"

#include "tests/rocksdb_plugin/legacy/processes/block_codecs.h"

int codec_user_run(int blocks, unsigned seed) {
  BlockCodecsResult r;
  const int failed = BlockCodecsRun(blocks, seed, NULL, &r);
  BlockCodecsPrint(stdout, "lib", &r);
  fflush(stdout);
  return failed;
}

/* The addresses this library's references resolve to (its GOT), in the
 * order of CODEC_USER_FUNCTION_NAMES (codec_user.h). */
int codec_user_functions(const void** out, int cap) {
  const void* const fns[] = CODEC_USER_FUNCTION_ADDRESSES;
  const int n = (int)(sizeof(fns) / sizeof(fns[0]));
  for (int i = 0; i < n && i < cap; ++i) out[i] = fns[i];
  return n;
}
