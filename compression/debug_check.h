// ROCKPOOL_DCHECK: invariant checks where the invariant is maintained.
//
// On in tests and sanitizer builds (.bazelrc: `test` and the asan/tsan
// configs define ROCKPOOL_DEBUG_CHECKS), off in opt builds, where the
// condition is not evaluated (it must have no side effects). A failed check
// prints the condition and its place and aborts: a broken invariant in a
// pool is memory corruption waiting to happen, not an error to recover from.
// This header is the one reader of the flag: code elsewhere tests
// ROCKPOOL_DEBUG_CHECKS_ON with #if (tests/debug_gate_test.py checks).
#ifndef ROCKPOOL_COMPRESSION_DEBUG_CHECK_H_
#define ROCKPOOL_COMPRESSION_DEBUG_CHECK_H_

#ifdef ROCKPOOL_DEBUG_CHECKS
#include <cstdio>
#include <cstdlib>

namespace rockpool::debug_check_internal {
[[noreturn]] inline void Fail(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "rockpool: invariant failed at %s:%d: %s\n", file, line, condition);
  std::abort();
}
}  // namespace rockpool::debug_check_internal

#define ROCKPOOL_DCHECK(condition)    \
  ((condition) ? static_cast<void>(0) \
               : ::rockpool::debug_check_internal::Fail(#condition, __FILE__, __LINE__))
#define ROCKPOOL_DEBUG_CHECKS_ON 1
#else
#define ROCKPOOL_DCHECK(condition) static_cast<void>(sizeof(!(condition)))
#define ROCKPOOL_DEBUG_CHECKS_ON 0
#endif

#endif  // ROCKPOOL_COMPRESSION_DEBUG_CHECK_H_
