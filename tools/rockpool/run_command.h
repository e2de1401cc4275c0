// `rockpool run [flags] -- PROGRAM [ARGS...]`: PROGRAM with the right rockpool
// object preloaded and switched on from the environment, then exec'd (its
// exit status and signals are PROGRAM's own).
//
//   --options=STRING   ROCKPOOL_OPTIONS (validated with the project's parser,
//                      rocksdb_plugin/options.h); without it an existing
//                      ROCKPOOL_OPTIONS is kept (and validated), else
//                      kDefaultOptions
//   --stats=PATH       ROCKPOOL_STATS (%p: the process id); refused (exit 2)
//                      when its directory cannot be written safely
//                      (rocksdb_plugin/own_file.h: writable by every user
//                      without the sticky bit, reached through another
//                      user's link, missing)
//   --stats            the same in a private directory, one file per process
//                      (stats_location.h: $XDG_RUNTIME_DIR/rockpool/%p.stats,
//                      /run/rockpool/%p.stats for root)
//   --verbose          ROCKPOOL_VERBOSE=1
//   --object=preload|interpose|native  overrides the choice (object_choice.h)
//
// LD_PRELOAD: the object is put first (tools/process/preload_list.h); one
// already there is moved to the front, not added again, and another rockpool
// object there (from an outer `rockpool run`) is replaced: two rockpool
// objects in one process never work. Exit 2 with one
// line on stderr, PROGRAM not started: a bad flag or option, a missing
// object, an unreadable or malformed program; 127: PROGRAM not found; 126:
// it cannot be executed.
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_RUN_COMMAND_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_RUN_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/rockpool/object_choice.h"

namespace rockpool::cli {

inline constexpr char kDefaultOptions[] = "max_idle_per_key=8";

struct RunRequest {
  std::optional<std::string> options;
  std::optional<std::string> stats;
  bool default_stats = false;  // --stats without a path
  bool verbose = false;
  std::optional<ObjectKind> object;
  std::vector<std::string> argv;  // PROGRAM [ARGS...]
};

// The arguments after "run". InvalidArgument for an unknown flag, a bad
// --object or a missing PROGRAM.
absl::StatusOr<RunRequest> ParseRunArguments(const std::vector<std::string>& args);

// `existing` LD_PRELOAD (entries separated by ':' or spaces, as ld.so reads
// them) with `object` first, as described above, ':'-joined.
std::string PreloadWith(const std::string& existing, const std::string& object);

// The ROCKPOOL_OPTIONS value to set: --options, else `existing` (the
// environment's, may be null or empty), else kDefaultOptions; InvalidArgument
// naming the source when the parser rejects it.
absl::StatusOr<std::string> OptionsToSet(const std::optional<std::string>& flag,
                                         const char* existing);

// Runs the command (args: what follows "run"); returns only on failure, with
// the exit code.
int RunCommand(const std::vector<std::string>& args);

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_RUN_COMMAND_H_
