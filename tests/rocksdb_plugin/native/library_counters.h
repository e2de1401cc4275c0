// Counts what the built-in RocksDB compressors allocate in zstd and zlib.
//
// The native tests link upstream RocksDB statically with
// -Wl,--wrap=ZSTD_createCCtx,... (see defs.bzl): the built-in manager's calls
// to ZSTD_createCCtx/ZSTD_createDCtx/deflateInit2_/inflateInit2_ land in
// wrappers that create the same contexts through a counting allocator. A
// z_stream whose caller set its own zalloc (rockpool's pooled streams) is
// passed through uncounted, and rockpool's zstd contexts are created with
// ZSTD_createCCtx_advanced, which is not wrapped: so these counters see the
// built-in compressors only, and rockpool's own figures come from its pools.
#ifndef ROCKPOOL_TESTS_NATIVE_LIBRARY_COUNTERS_H_
#define ROCKPOOL_TESTS_NATIVE_LIBRARY_COUNTERS_H_

#include "compression/counting_allocator.h"

namespace rockpool::testing {

// Bytes and calls zstd/zlib allocated for RocksDB's built-in compressors.
AllocationCounts BuiltinLibraryCounts();

}  // namespace rockpool::testing

#endif  // ROCKPOOL_TESTS_NATIVE_LIBRARY_COUNTERS_H_
