// Runs the `rockpool` binary under test with a chosen environment, for the
// end-to-end tests of tools/rockpool.
#ifndef ROCKPOOL_TESTS_TOOLS_ROCKPOOL_CLI_RUNNER_H_
#define ROCKPOOL_TESTS_TOOLS_ROCKPOOL_CLI_RUNNER_H_

#include <cstddef>
#include <string>
#include <vector>

namespace rockpool::cli::cli_test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsan = true;  // the objects are instrumented: no preloading them
#else
inline constexpr bool kAsan = false;
#endif

struct Result {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

// The binary and ROCKPOOL_LIBDIR every Rockpool() call uses.
void SetRockpool(const std::string& rockpool, const std::string& libdir);

// Runs `rockpool args...` with PATH=/usr/bin:/bin, ROCKPOOL_LIBDIR (unless
// `env` sets it) and `env` only.
Result Rockpool(const std::vector<std::string>& args, std::vector<std::string> env = {});

std::string Absolute(const std::string& path);  // realpath, or `path` if that fails
std::string TempDir();                          // TEST_TMPDIR or /tmp
std::string ReadFile(const std::string& path);  // "" if missing
size_t Lines(const std::string& s);

}  // namespace rockpool::cli::cli_test

#endif  // ROCKPOOL_TESTS_TOOLS_ROCKPOOL_CLI_RUNNER_H_
