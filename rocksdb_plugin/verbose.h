// ROCKPOOL_VERBOSE: whether rockpool says what it did on stderr. Shared by
// both faces (the legacy objects and librockpool_native.so).
//
// rockpool is quiet by default: a process that inherits ROCKPOOL_OPTIONS
// (every child of a shell shim, a wrapper script, mysqld_safe) prints
// nothing when it is configured. With ROCKPOOL_VERBOSE=1 each process says
// what it did, one line each, prefixed with its pid so the lines of a
// process tree can be told apart:
//
//   rockpool[12345]: active from ROCKPOOL_OPTIONS: enabled=true;... mode=pool; ...
//
// In a privileged process (AT_SECURE: setuid, setgid, file capabilities)
// the variable is not read (secure_getenv): such a process is quiet.
//
// Values: exactly "1" is verbose. Unset, empty, "0" and anything else
// ("true", "yes", " 1", "2") are quiet, and an unrecognised value prints no
// message either: a diagnostic switch must never add output to every process
// of a tree; other values are reserved (future levels).
//
// Errors are not affected: a bad ROCKPOOL_OPTIONS or ROCKPOOL_STATS_SECONDS
// prints its one "rockpool: ..." line whatever ROCKPOOL_VERBOSE says
// (legacy/environment.h). Neither are the ROCKPOOL_STATS file and the LOG lines.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_VERBOSE_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_VERBOSE_H_

#include <cstddef>
#include <string_view>

namespace rockpool {

inline constexpr char kVerboseVariable[] = "ROCKPOOL_VERBOSE";

// The longest line SayVerbose writes, prefix and newline included.
inline constexpr std::size_t kVerboseLineLimit = 4096;  // PIPE_BUF on Linux

// True if ROCKPOOL_VERBOSE is "1" (read once; thread-safe; no allocation after the first call).
// The first call of the process reads the variable (getenv, no allocation
// either); every caller then sees that value, whatever setenv() does later.
bool VerboseEnabled() noexcept;

// If VerboseEnabled(): writes "rockpool[<pid>]: <line>\n" to stderr in one write(2). Never throws.
// No allocation, no stdio (safe before main, in an interposed call, while
// another thread holds stdio's locks); errno is preserved. <pid> is
// getpid() at the call (a forked child prints its own). A line longer than
// kVerboseLineLimit bytes in all is cut, ending in "...\n" (one write of at
// most PIPE_BUF bytes is atomic on a pipe: lines of concurrent processes
// never interleave). A `line` ending in '\n' gets no second one.
void SayVerbose(std::string_view line) noexcept;

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_VERBOSE_H_
