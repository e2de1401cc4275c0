// Parent side, the bottom of its three layers (session.h, mode_runs.h, this):
// runs one strategy in a child process of this very binary
// (/proc/self/exe with the hidden --internal_child flag), so whole-process
// figures (malloc, RSS, page faults, CPU) belong to that run alone; shows a
// progress bar on stderr when it is a terminal; and holds the scratch
// directory every job, result and output goes to.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_RUNNER_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_RUNNER_H_

#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

// A one-line bar on stderr, drawn only if `enabled` (the caller checks
// isatty) and only once the run has lasted more than a second. A thread
// redraws it every 200 ms, so it moves (elapsed time) even while a long
// step reports nothing.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  void SetTotal(double units);
  // `done` in units; `label` says what runs now. Shows the bar again after
  // Clear().
  void Update(double done, std::string_view label);
  // Erases the bar and keeps it hidden until the next Update (call before
  // other output on stderr).
  void Clear();

 private:
  void Loop();
  void DrawLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  double total_ ABSL_GUARDED_BY(mu_) = 1;
  double done_ ABSL_GUARDED_BY(mu_) = 0;
  std::string label_ ABSL_GUARDED_BY(mu_);
  bool visible_ ABSL_GUARDED_BY(mu_) = false;  // wanted on screen
  bool drawn_ ABSL_GUARDED_BY(mu_) = false;    // on screen now
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// The scratch directory of one invocation: everything sst_replay writes
// (generated workload, jobs, outputs, copied DBs) goes here; removed at the
// end unless --keep_tmp.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  // A new directory under `parent` ($TMPDIR or /tmp when empty).
  absl::Status Create(std::string parent, bool keep);
  std::string Path(std::string_view name) const;
  const std::string& dir() const { return path_; }
  bool keep() const { return keep_; }

 private:
  std::string path_;
  bool keep_ = false;
};

// Removes a file or directory tree, ignoring errors.
void RemoveQuietly(const std::string& path);

// Writes `job` to `job_path`, runs the child (with the job's allocator
// preloaded), reads its result and adds what the parent measured of the
// whole child: felt_wall_ns, and wait4's felt_cpu_ns, felt_minor_faults and
// felt_major_faults. A child that was killed, or exited non-zero with no
// error in its result, gets error_code 3. `units_done` is where this run
// starts on the bar (each run is one unit).
absl::StatusOr<RunResult> RunChild(const std::string& self_exe, const Job& job,
                                   const std::string& job_path, const std::string& result_path,
                                   ProgressBar* bar, double units_done, const std::string& label);

// The executable of this process (readlink /proc/self/exe).
absl::StatusOr<std::string> SelfExecutable();

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_RUNNER_H_
