/* Force-included (-include) into every source of the module's private zstd
 * and zlib copies and into module.c (tests/private_codecs/build.sh): the
 * copies allocate through the module's own allocator, so the module can tell
 * a context its copy made from one made anywhere else.
 *   zstd: ZSTD_DEPS_MALLOC is defined here, so lib/common/zstd_deps.h takes
 *         ZSTD_malloc/ZSTD_calloc/ZSTD_free from below instead of libc's.
 *   zlib: built with -DMY_ZCALLOC -DHAVE_HIDDEN; module.c defines zcalloc
 *         and zcfree (hidden, like zlib's own).
 * Everything here is hidden: nothing of it can be interposed.
 */
#ifndef ROCKPOOL_TESTS_PRIVATE_CODECS_PRIVATE_ALLOC_H_
#define ROCKPOOL_TESTS_PRIVATE_CODECS_PRIVATE_ALLOC_H_

#include <stddef.h>
#include <stdlib.h>

#define PRIVATE_HIDDEN __attribute__((visibility("hidden")))

PRIVATE_HIDDEN void* private_malloc(size_t n);
PRIVATE_HIDDEN void* private_calloc(size_t n, size_t size);
PRIVATE_HIDDEN void private_free(void* p);
/* 1 if p is a live allocation of private_malloc/private_calloc. */
PRIVATE_HIDDEN int private_owns(const void* p);

#ifndef SYSTEM_TWIN
#define ZSTD_DEPS_MALLOC
#define ZSTD_malloc(s) private_malloc(s)
#define ZSTD_calloc(n, s) private_calloc((n), (s))
#define ZSTD_free(p) private_free((p))
#endif

#endif /* ROCKPOOL_TESTS_PRIVATE_CODECS_PRIVATE_ALLOC_H_ */
