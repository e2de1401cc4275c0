// rockpool: runs programs with rockpool's pooled compression contexts,
// reports what their ROCKPOOL_STATS files say, and tells which object a
// program gets (README.md beside this file).
//
//   rockpool run [--options=STRING] [--stats[=PATH]] [--verbose]
//                [--object=preload|interpose|native] -- PROGRAM [ARGS...]
//   rockpool stats [--json] [PATH...]
//   rockpool check PROGRAM
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rockpool_version.h"
#include "tools/rockpool/object_choice.h"
#include "tools/rockpool/run_command.h"
#include "tools/rockpool/stats_file.h"
#include "tools/rockpool/stats_location.h"

namespace rockpool::cli {
namespace {

constexpr char kUsage[] =
    "rockpool: pooled zstd, zlib and LZ4 compression contexts for RocksDB programs.\n"
    "\n"
    "Usage:\n"
    "  rockpool run [flags] -- PROGRAM [ARGS...]\n"
    "      execs PROGRAM (found on PATH) with the rockpool object preloaded: the preload\n"
    "      object only when PROGRAM links the librocksdb.so build it is built for (Debian's\n"
    "      7.8.3: soname and build date, as the dynamic loader resolves it), the native\n"
    "      object (compression_manager=rockpool) likewise for the upstream librocksdb.so it\n"
    "      is built for, the interposer otherwise (another RocksDB, mariadbd with MyRocks,\n"
    "      no RocksDB, a script).\n"
    "      --options=STRING   ROCKPOOL_OPTIONS (default max_idle_per_key=8; an existing\n"
    "                         ROCKPOOL_OPTIONS is kept unless this flag is given)\n"
    "      --stats=PATH       ROCKPOOL_STATS: the process's statistics file (%p: its pid;\n"
    "                         the native object's lines: ROCKPOOL_NATIVE_STATS, same path);\n"
    "                         refused in a directory every user may write without the\n"
    "                         sticky bit\n"
    "      --stats            the same in a private directory: $XDG_RUNTIME_DIR/rockpool/\n"
    "                         %p.stats (/run/rockpool/%p.stats for root)\n"
    "      --verbose          ROCKPOOL_VERBOSE=1: each process says what it did on stderr\n"
    "      --object=preload|interpose|native   overrides the choice\n"
    "  rockpool stats [--json] [PATH...]\n"
    "      the statistics files of processes run with --stats (no PATH: every *.stats file\n"
    "      of the private directory above): per process and in total,\n"
    "      leases, contexts created and reused, codec-library bytes, the stock estimate\n"
    "      and what pooling saved (<=: an upper bound, zstd), idle contexts, whether each\n"
    "      codec was pooled, and why a process was not served\n"
    "  rockpool check PROGRAM\n"
    "      which object `run` would use for PROGRAM and why, without running it\n"
    "  rockpool --help | --version\n"
    "\n"
    "The objects are in $ROCKPOOL_LIBDIR, default /usr/lib/x86_64-linux-gnu/rockpool.\n"
    "LD_PRELOAD is ignored for setuid/setgid programs except for objects in the\n"
    "trusted directories that are themselves setuid; run such programs unprivileged.\n"
    "Exit codes: PROGRAM's own (run); 0 success; 2 bad usage, options, input or a\n"
    "missing object; 126/127 PROGRAM cannot be executed / not found.\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "rockpool: %s (see rockpool --help)\n", message.c_str());
  return 2;
}

int StatsCommand(const std::vector<std::string>& args) {
  bool json = false;
  std::vector<std::string> paths;
  bool only_paths = false;
  for (const std::string& a : args) {
    if (!only_paths && a == "--json") {
      json = true;
    } else if (!only_paths && a == "--") {
      only_paths = true;
    } else if (!only_paths && a.size() > 1 && a[0] == '-') {
      return Usage(absl::StrCat("stats: unknown flag ", a));
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) {
    // The files `rockpool run --stats` (no path) wrote.
    absl::StatusOr<std::vector<std::string>> found = DefaultStatsFiles();
    if (!found.ok()) {
      std::fprintf(stderr, "rockpool stats: %s\n", std::string(found.status().message()).c_str());
      return 2;
    }
    paths = *std::move(found);
  }
  std::vector<ProcessStats> processes;
  for (const std::string& path : paths) {
    absl::StatusOr<ProcessStats> s = ReadStatsFile(path);
    if (!s.ok()) {
      std::fprintf(stderr, "rockpool stats: %s\n", std::string(s.status().message()).c_str());
      return 2;
    }
    processes.push_back(*std::move(s));
  }
  const std::string out = json ? FormatJson(processes) : FormatTable(processes);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int CheckCommand(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    return Usage("check: expected exactly one PROGRAM");
  }
  absl::StatusOr<std::string> program = ResolveProgram(args[0]);
  if (!program.ok()) {
    std::fprintf(stderr, "rockpool check: %s\n", std::string(program.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<ObjectChoice> choice = ChooseObject(*program);
  if (!choice.ok()) {
    std::fprintf(stderr, "rockpool check: %s\n", std::string(choice.status().message()).c_str());
    return 2;
  }
  std::printf("%s: %s\n", ObjectFileName(choice->kind), choice->reason.c_str());
  std::printf("object: %s\n", choice->object_path.c_str());
  if (access(choice->object_path.c_str(), R_OK) != 0) {
    std::printf("object missing: %s (set %s)\n", choice->object_path.c_str(), kLibDirVariable);
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace rockpool::cli

int main(int argc, char** argv) {
  using namespace rockpool::cli;
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (args.empty()) return Usage("no command");
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("rockpool %s\n", ROCKPOOL_VERSION);
    return 0;
  }
  if (command == "run") return RunCommand(args);
  if (command == "stats") return StatsCommand(args);
  if (command == "check") return CheckCommand(args);
  return Usage(absl::StrCat("unknown command ", command));
}
