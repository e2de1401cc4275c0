#include "tools/sst_replay/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "tools/process/preload_list.h"

extern char** environ;

namespace rockpool::replay {

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

ProgressBar::~ProgressBar() {
  if (!enabled_) return;
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    EraseLocked();
  }
  cv_.SignalAll();
  thread_.join();
}

void ProgressBar::SetTotal(double units) {
  absl::MutexLock lock(&mu_);
  total_ = units;
}

void ProgressBar::Update(double done, std::string_view label) {
  if (!enabled_) return;
  absl::MutexLock lock(&mu_);
  done_ = done;
  label_.assign(label.data(), label.size());
  visible_ = true;
}

void ProgressBar::Clear() {
  if (!enabled_) return;
  absl::MutexLock lock(&mu_);
  visible_ = false;
  EraseLocked();
}

void ProgressBar::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    cv_.WaitWithTimeout(&mu_, absl::Milliseconds(200));
    if (stop_) break;
    if (visible_ && std::chrono::steady_clock::now() - start_ >= std::chrono::seconds(1)) {
      DrawLocked();
    }
  }
}

void ProgressBar::DrawLocked() {
  const double fraction = total_ > 0 ? std::min(1.0, std::max(0.0, done_ / total_)) : 0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string label = label_;
  if (label.size() > 60) label = "..." + label.substr(label.size() - 57);
  std::fprintf(stderr, "\r\033[K[%s] %3d%%  %3.0fs  %s", bar.c_str(),
               static_cast<int>(fraction * 100), elapsed, label.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::EraseLocked() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

namespace {

int64_t Nanos(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

// What the user feels of a child, measured by the parent over the whole
// child process: spawn to reaped, and wait4's CPU time and page faults (the
// child's peak RSS is its own figure, felt_peak_rss_bytes: ru_maxrss would
// carry the parent's).
void AddFeltMetrics(const struct rusage& usage, int64_t wall_ns, RunResult* result) {
  auto& m = result->metrics;
  m["felt_wall_ns"] = wall_ns;
  m["felt_cpu_ns"] = Nanos(usage.ru_utime) + Nanos(usage.ru_stime);
  m["felt_minor_faults"] = usage.ru_minflt;
  m["felt_major_faults"] = usage.ru_majflt;
}

// The parent's environment without ROCKPOOL_*: each child configures
// rockpool itself (stock: measure_stock, pooled: the pool options), so a
// user's ROCKPOOL_OPTIONS/ROCKPOOL_STATS must not switch a stock child to
// pooling, nor have children overwrite a statistics file. With an
// allocator to preload, LD_PRELOAD names it first and keeps the user's
// objects after it (the child checks that the allocator serves malloc).
// `storage` holds the LD_PRELOAD entry the result points into.
std::vector<char*> ChildEnvironment(const std::string& preload, std::string* storage) {
  std::vector<char*> envp;
  std::string_view inherited;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.substr(0, 9) == "ROCKPOOL_") continue;
    if (!preload.empty() && entry.substr(0, 11) == "LD_PRELOAD=") {
      inherited = entry.substr(11);
      continue;
    }
    envp.push_back(*e);
  }
  if (!preload.empty()) {
    *storage = "LD_PRELOAD=" + process::PreloadFirst(preload, inherited);
    envp.push_back(storage->data());
  }
  envp.push_back(nullptr);
  return envp;
}

// Progress lines from the child's pipe onto the bar until the child closes
// it (it exits).
void FollowProgress(int fd, ProgressBar* bar, double units_done, const std::string& label) {
  std::string pending;
  double fraction = 0;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r < 0 && errno == EINTR) continue;
    if (r > 0) {
      char buf[256];
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        fraction = std::atoi(pending.substr(0, nl).c_str()) / 1000.0;
        pending.erase(0, nl + 1);
      }
    }
    bar->Update(units_done + fraction, label);
  }
}

// Starts this executable as a child on `job_path` with its stdout on our
// stderr (our stdout is the report's) and `progress_fd` as its fd 3.
absl::StatusOr<pid_t> SpawnChild(const std::string& self_exe, const std::string& job_path,
                                 const std::string& result_path, const std::string& preload,
                                 int progress_fd) {
  constexpr int kChildProgressFd = 3;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, progress_fd, kChildProgressFd);  // clears CLOEXEC
  std::vector<std::string> args = {self_exe, "--internal_child", "--internal_job=" + job_path,
                                   "--internal_result=" + result_path,
                                   absl::StrCat("--internal_progress_fd=", kChildProgressFd)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string preload_entry;
  std::vector<char*> envp = ChildEnvironment(preload, &preload_entry);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self_exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::ErrnoToStatus(rc, absl::StrCat("cannot start ", self_exe));
  return pid;
}

// The child's result file, or an internal error in its place when the child
// was killed or left none.
absl::StatusOr<RunResult> ReadChildResult(int status, const std::string& result_path,
                                          const std::string& label) {
  RunResult failed;
  failed.error_code = 3;
  if (WIFSIGNALED(status)) {
    failed.error = absl::StrCat("child run (", label, ") was killed by signal ", WTERMSIG(status));
    return failed;
  }
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  absl::StatusOr<std::string> text = ReadTextFile(result_path);
  if (!text.ok()) {
    failed.error =
        absl::StrCat("child run (", label, ") exited with code ", exit_code, " and left no result");
    return failed;
  }
  absl::StatusOr<RunResult> result = ParseResult(*text);
  if (result.ok() && exit_code != 0 && result->error_code == 0) {
    result->error_code = 3;
    result->error = absl::StrCat("child run (", label, ") exited with code ", exit_code);
  }
  return result;
}

}  // namespace

Scratch::~Scratch() {
  if (path_.empty()) return;
  if (keep_) {
    std::fprintf(stderr, "sst_replay: scratch directory kept: %s\n", path_.c_str());
    return;
  }
  RemoveQuietly(path_);
}

absl::Status Scratch::Create(std::string parent, bool keep) {
  keep_ = keep;
  if (parent.empty()) {
    const char* env = std::getenv("TMPDIR");
    parent = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  std::string tmpl = parent + "/sst_replay.XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(parent, ": cannot create a scratch directory: ", std::strerror(errno)));
  }
  path_ = tmpl;
  return absl::OkStatus();
}

std::string Scratch::Path(std::string_view name) const {
  return absl::StrCat(path_, "/", std::string(name));
}

void RemoveQuietly(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

absl::StatusOr<std::string> SelfExecutable() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) return absl::ErrnoToStatus(errno, "readlink /proc/self/exe");
  path.resize(static_cast<size_t>(n));
  return path;
}

absl::StatusOr<RunResult> RunChild(const std::string& self_exe, const Job& job,
                                   const std::string& job_path, const std::string& result_path,
                                   ProgressBar* bar, double units_done, const std::string& label) {
  if (absl::Status s = WriteTextFile(job_path, SerializeJob(job)); !s.ok()) return s;
  ::unlink(result_path.c_str());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe");
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<pid_t> pid =
      SpawnChild(self_exe, job_path, result_path, job.allocator_preload, fds[1]);
  ::close(fds[1]);
  if (pid.ok()) FollowProgress(fds[0], bar, units_done, label);
  ::close(fds[0]);
  if (!pid.ok()) return pid.status();
  int status = 0;
  struct rusage usage {};
  while (::wait4(*pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "wait4");
  }
  const int64_t wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  absl::StatusOr<RunResult> result = ReadChildResult(status, result_path, label);
  if (result.ok() && !WIFSIGNALED(status)) AddFeltMetrics(usage, wall_ns, &*result);
  return result;
}

}  // namespace rockpool::replay
