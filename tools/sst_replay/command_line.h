// sst_replay's command line: Abseil flag syntax parsed without
// absl::ParseCommandLine (whose exit(1) this tool reserves for "outputs
// differ"), and the flags' values checked and turned into Settings. The
// flags themselves are defined in sst_replay.cc, so that --help lists them
// (Abseil's --help shows the main file's flags).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_COMMAND_LINE_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_COMMAND_LINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/process/allocator_choice.h"
#include "tools/sst_replay/plan.h"

namespace rockpool::replay {

// --allocator, as tools/process's allocator messages name it.
inline constexpr process::AllocatorFlag kAllocatorFlag = {"--allocator", "sst_replay"};

// The checked settings of one invocation.
struct Settings {
  bool json = false;
  std::string svg;
  uint64_t workload_mb = 32;
  std::string tmpdir;
  bool keep_tmp = false;
  bool progress = true;
  std::string rocksdb_version = "auto";  // "auto" or a version PatternForVersion knows
  // --allocator as given: checked by the session
  // (tools/process/allocator_choice.h's SelectAllocators), whose errors
  // are one line without "Try --help"
  std::string allocator = "glibc";
  // --testonly_scratch_free_bytes, a flag of test builds only
  // (sst_replay.cc): the free bytes compaction mode's room check takes for
  // the scratch directory (-1: statvfs says; always, in a released binary)
  int64_t scratch_free_bytes = -1;
  ReplaySettings replay;
};

// The flags as given (sst_replay.cc copies them out of ABSL_FLAGs): the
// values Settings takes as they are (replay's blocks, compaction, codec and
// level excepted), and the three that SettingsFromFlags converts into those.
struct FlagValues : Settings {
  std::string mode = "both";
  std::string codec;
  std::string level;
};

// InvalidArgument naming the flag for any bad value.
absl::StatusOr<Settings> SettingsFromFlags(const FlagValues& flags);

// Parses argv with Abseil's flag syntax (--name=value, --name value, --bool,
// --nobool, -name) through Abseil's public flag reflection, collecting the
// other arguments in order ("--" ends the flags). Returns an exit code to
// stop with (0 after --help and the other usage flags, 2 after a usage
// error, printed), or -1 to go on.
int ParseFlags(int argc, char** argv, std::vector<std::string>* positional);

// Prints "sst_replay: <message>" and "Try --help." on stderr; returns 2.
int UsageError(absl::string_view message);

// `s` with newlines replaced by spaces: every message is one line.
std::string OneLine(absl::string_view s);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_COMMAND_LINE_H_
