// Switching the legacy face on from the environment, for programs that take
// no listener from options (db_bench without --options_file, db_stress,
// programs that build their listener list in code) and for processes that
// carry their own RocksDB (librockpool_interpose.so: no RocksDB at all).
//
//   ROCKPOOL_OPTIONS="max_idle_per_key=8;idle_seconds=60"
//       read once when rockpool is loaded (a static initializer of the
//       executable or of the preload object); same syntax, names and errors
//       as the listener's options (rocksdb_plugin/options.h). Set: the
//       process is configured with those options, silently: with
//       ROCKPOOL_VERBOSE=1 (verbose.h) it says so in one line on stderr,
//       `rockpool[<pid>]: active from ROCKPOOL_OPTIONS: ...`. Unset or empty:
//       nothing changes (pooling stays off until a listener or Configure()
//       switches it on). A bad value prints one line on stderr (always,
//       `rockpool: ROCKPOOL_OPTIONS="...": ...; pooling stays off`) and
//       leaves pooling off: never half-configured.
//       A `rockpool` listener created later replaces this configuration (the
//       most recent wins, enabled=false included).
//   ROCKPOOL_STATS=/path/file
//       rockpool replaces that file with one `rockpool report: event=...
//       pid=... mode=...` line (report.h): at process exit, every
//       ROCKPOOL_STATS_SECONDS seconds (default 10; 0: only at exit) and
//       after every flush and compaction a listener sees. Each time it
//       writes a new file under an unpredictable name in the same directory
//       and renames it over the old one (rocksdb_plugin/own_file.h): it
//       never writes through a symbolic link, and refuses a path where
//       something other than its own regular file stands, or a directory
//       every user may write without the sticky bit (one line on stderr
//       with ROCKPOOL_VERBOSE=1, never a write). Only the process that read
//       the variable writes it (not a forked child), and a process that
//       leased no context does not overwrite an existing file (wrapper
//       scripts share the environment); "%p" in the path is replaced by the
//       process id. A bad ROCKPOOL_STATS_SECONDS prints one line on stderr
//       (always) and no file is written.
//   ROCKPOOL_STATS_MODE=0640
//       the file's mode (octal; default 0600, the umask does not apply); no
//       execute bit and not writable by every user. A bad value prints one
//       line on stderr (always) and no file is written.
//
// In a privileged process (AT_SECURE: setuid, setgid or file
// capabilities) none of these variables is read (secure_getenv): they
// belong to whoever started the process, not to its owner. Pooling then
// stays off unless a listener switches it on, and no file is written.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENVIRONMENT_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENVIRONMENT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy {

inline constexpr char kOptionsVariable[] = "ROCKPOOL_OPTIONS";
inline constexpr char kStatsVariable[] = "ROCKPOOL_STATS";
inline constexpr char kStatsSecondsVariable[] = "ROCKPOOL_STATS_SECONDS";
inline constexpr char kStatsModeVariable[] = "ROCKPOOL_STATS_MODE";

// What ROCKPOOL_OPTIONS = `value` asks for: nullopt for null or blank (no
// configuration), the options, or InvalidArgument naming the variable and
// the option.
absl::StatusOr<std::optional<RockpoolOptions>> OptionsFromEnvironmentValue(const char* value);

// What ConfigureFromEnvironment() has to say.
struct EnvironmentMessages {
  // Lines for a bad ROCKPOOL_OPTIONS / ROCKPOOL_STATS_SECONDS, each
  // "rockpool: ...\n" ("" if none): printed on stderr whatever
  // ROCKPOOL_VERBOSE says.
  std::string errors;
  // "active from ROCKPOOL_OPTIONS: <options> mode=...; <interposition>",
  // without prefix or newline ("" if not configured): printed only with
  // ROCKPOOL_VERBOSE=1, through SayVerbose (verbose.h).
  std::string activation;
};

// Reads ROCKPOOL_OPTIONS / ROCKPOOL_STATS* and applies them as described
// above. Done once at load, which then prints the messages; exposed for
// tests (it prints nothing itself). `describe`: also write the activation
// line (it looks up every interposed name: the load does so only when
// ROCKPOOL_VERBOSE asks for the line).
EnvironmentMessages ConfigureFromEnvironment(bool describe = true);

// Rewrites the ROCKPOOL_STATS file now, if one is set up (no-op otherwise).
// `event`: "exit", "period", "flush", "compaction".
void WriteStatsFile(const char* event) noexcept;

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENVIRONMENT_H_
