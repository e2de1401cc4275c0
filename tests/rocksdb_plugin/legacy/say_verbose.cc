// A program linking //rocksdb_plugin:interpose that says its arguments
// through SayVerbose (verbose_test runs it with ROCKPOOL_VERBOSE set in
// various ways: VerboseEnabled() reads the variable once per process).
//
// Usage: say_verbose [--long=N] [--newline=TEXT] [--setenv-after] [line...]
// stdout: "pid=<getpid()> enabled=<0|1>\n". stderr: what SayVerbose wrote.
//   --long=N        also says a line of N 'x' characters
//   --newline=TEXT  also says TEXT followed by '\n'
//   --setenv-after  after the first VerboseEnabled(), sets ROCKPOOL_VERBOSE=1
//                   (must change nothing: read once)
// Exits 3 if SayVerbose changed errno.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rocksdb_plugin/verbose.h"

int main(int argc, char** argv) {
  std::vector<std::string> lines;
  bool setenv_after = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--long=", 7) == 0) {
      lines.push_back(std::string(std::strtoul(argv[i] + 7, nullptr, 10), 'x'));
    } else if (std::strncmp(argv[i], "--newline=", 10) == 0) {
      lines.push_back(std::string(argv[i] + 10) + "\n");
    } else if (std::strcmp(argv[i], "--setenv-after") == 0) {
      setenv_after = true;
    } else {
      lines.push_back(argv[i]);
    }
  }
  const bool enabled = rockpool::VerboseEnabled();
  if (setenv_after) setenv(rockpool::kVerboseVariable, "1", 1);
  std::printf("pid=%d enabled=%d\n", static_cast<int>(getpid()), enabled ? 1 : 0);
  std::fflush(stdout);
  for (const std::string& line : lines) {
    errno = 1234;
    rockpool::SayVerbose(line);
    if (errno != 1234) return 3;
  }
  return 0;
}
