// ROCKPOOL_FAST_TLS: for the thread-locals on rockpool's per-call paths.
//
// Why: in a shared object (librockpool_preload.so, librockpool_interpose.so,
// a librocksdb.so with the native plugin) a thread_local is reached through
// __tls_get_addr by default, 11 instructions a read; the legacy face reads
// several per block (measured with callgrind: ~100 instructions per block read
// of db_bench readrandom, zlib). The initial-exec model makes it one
// %fs-relative load. constinit keeps the compiler from guarding it with a
// dynamic-initialization wrapper.
//
// Safe in executables and in shared objects loaded at startup (LD_PRELOAD,
// linked libraries). A shared object dlopen()ed later takes these few bytes
// from glibc's static TLS surplus, which exists for this purpose.
#ifndef ROCKPOOL_COMPRESSION_FAST_TLS_H_
#define ROCKPOOL_COMPRESSION_FAST_TLS_H_

#include "absl/base/attributes.h"

#define ROCKPOOL_FAST_TLS ABSL_ATTRIBUTE_INITIAL_EXEC constinit thread_local

#endif  // ROCKPOOL_COMPRESSION_FAST_TLS_H_
