// FUZZ_CHECK: an invariant of a fuzz target. A violation prints what failed
// and aborts, which libFuzzer reports as a crash (and saves the input) and
// the replay test reports as a failure.
#ifndef ROCKPOOL_TESTS_FUZZ_FUZZ_CHECK_H_
#define ROCKPOOL_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#define FUZZ_CHECK_MSG(cond, msg)                                                            \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                   std::string(msg).c_str());                                                \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

#endif  // ROCKPOOL_TESTS_FUZZ_FUZZ_CHECK_H_
