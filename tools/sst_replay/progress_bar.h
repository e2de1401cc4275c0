// sst_replay's progress bar: one line on stderr while the runs go on.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_PROGRESS_BAR_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_PROGRESS_BAR_H_

#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

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

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_PROGRESS_BAR_H_
