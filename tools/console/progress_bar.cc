#include "tools/console/progress_bar.h"

#include <algorithm>
#include <cstdio>

#include "absl/time/time.h"
#include "compression/annotated_mutex.h"

namespace rockpool::console {

ProgressBar::ProgressBar(bool enabled, std::FILE* out)
    : enabled_(enabled), out_(out), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

ProgressBar::~ProgressBar() {
  if (!enabled_) return;
  {
    AnnotatedMutexLock lock(&mu_);
    stop_ = true;
    EraseLocked();
  }
  cv_.SignalAll();
  thread_.join();
}

void ProgressBar::SetTotal(double units) {
  AnnotatedMutexLock lock(&mu_);
  total_ = units;
}

void ProgressBar::Update(double done, std::string_view label) {
  if (!enabled_) return;
  AnnotatedMutexLock lock(&mu_);
  done_ = done;
  label_.assign(label.data(), label.size());
  visible_ = true;
}

void ProgressBar::Clear() {
  if (!enabled_) return;
  AnnotatedMutexLock lock(&mu_);
  visible_ = false;
  EraseLocked();
}

void ProgressBar::Loop() {
  AnnotatedMutexLock lock(&mu_);
  while (!stop_) {
    AnnotatedWaitWithTimeout(&cv_, &mu_, absl::Milliseconds(200));
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
  // A label's end says most (the file name of a path), so a long one keeps it.
  std::string label = label_;
  if (label.size() > 60) label = "..." + label.substr(label.size() - 57);
  // "\r" back to the line's start, ESC [K erases the rest: a shorter line
  // than the last leaves nothing of it behind.
  std::fprintf(out_, "\r\033[K[%s] %3d%%  %3.0fs  %s", bar.c_str(),
               static_cast<int>(fraction * 100), elapsed, label.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::EraseLocked() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace rockpool::console
