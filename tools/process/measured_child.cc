#include "tools/process/measured_child.h"

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tools/process/preload_list.h"

extern char** environ;

namespace rockpool::process {
namespace {

int64_t Nanos(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

// The parent's environment as options asks; `storage` holds the composed
// LD_PRELOAD entry the result points into.
std::vector<char*> ChildEnvironment(const ChildOptions& options, std::string* storage) {
  std::vector<char*> envp;
  std::string_view inherited;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool unset = false;
    for (const std::string& prefix : options.unset_prefixes) {
      unset = unset || entry.substr(0, prefix.size()) == prefix;
    }
    if (unset) continue;
    if (!options.preload.empty() && entry.substr(0, 11) == "LD_PRELOAD=") {
      inherited = entry.substr(11);
      continue;
    }
    envp.push_back(*e);
  }
  if (!options.preload.empty()) {
    *storage = "LD_PRELOAD=" + PreloadFirst(options.preload, inherited);
    envp.push_back(storage->data());
  }
  envp.push_back(nullptr);
  return envp;
}

}  // namespace

absl::StatusOr<ChildUsage> RunMeasuredChild(const ChildOptions& options,
                                            absl::FunctionRef<void()> while_running) {
  if (options.argv.empty()) return absl::InvalidArgumentError("no program to run");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const auto& [from, to] : options.fds) posix_spawn_file_actions_adddup2(&actions, from, to);
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string preload_entry;
  std::vector<char*> envp = ChildEnvironment(options, &preload_entry);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::ErrnoToStatus(rc, absl::StrCat("cannot start ", options.argv[0]));
  while_running();
  ChildUsage out;
  struct rusage usage {};
  while (::wait4(pid, &out.status, 0, &usage) < 0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "wait4");
  }
  out.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  out.cpu_ns = Nanos(usage.ru_utime) + Nanos(usage.ru_stime);
  out.minor_faults = usage.ru_minflt;
  out.major_faults = usage.ru_majflt;
  return out;
}

}  // namespace rockpool::process
