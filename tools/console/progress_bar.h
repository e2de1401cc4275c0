// A progress bar for a command-line tool whose work takes long enough that a
// person wonders whether it still runs: one line on a terminal, redrawn in
// place, erased before the tool prints anything else there.
#ifndef ROCKPOOL_TOOLS_CONSOLE_PROGRESS_BAR_H_
#define ROCKPOOL_TOOLS_CONSOLE_PROGRESS_BAR_H_

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace rockpool::console {

// A one-line bar on `out` (stderr unless told otherwise): "[####....]  40%
// 12s  label". Drawn only if `enabled` (the caller decides, usually by
// isatty: escape codes do not belong in a log file) and only once the bar has
// existed for more than a second, so quick runs print nothing. A thread of
// its own redraws it every 200 ms, so the elapsed time moves even while a
// long step reports nothing. A disabled bar starts no thread and writes
// nothing. Thread-safe: any thread may call Update and Clear.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled, std::FILE* out = stderr);
  // Erases the bar if it is on screen.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // How many units the whole work is; the bar is full at `units` done.
  void SetTotal(double units);
  // `done` in units; `label` says what runs now (long labels keep their
  // end). Shows the bar again after Clear().
  void Update(double done, std::string_view label);
  // Erases the bar and keeps it hidden until the next Update: call it before
  // other output on the bar's stream, or that output lands inside the bar.
  void Clear();

 private:
  void Loop();
  void DrawLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const bool enabled_;
  std::FILE* const out_;
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

}  // namespace rockpool::console

#endif  // ROCKPOOL_TOOLS_CONSOLE_PROGRESS_BAR_H_
