// Ages idle contexts without reading a clock on the lease/return fast path.
//
// A returned context is stamped with the current sweep epoch (an atomic load).
// Each sweep reads the clock once and starts a new epoch. A context stamped e
// became idle before epoch e+1 started, so it has been idle at least
// now - start(e+1): it expires when start(e+1) <= now - idle_timeout.
// Expiry is therefore never early, and late by at most the gap between two
// sweeps (sweeps run on the pool's slow paths when due, every idle_timeout/4,
// on ReleaseExpired(), and on one lease in kMaintenanceLeases per thread).
//
// Not thread-safe: the pool calls it under its mutex. The start times of the
// last kEpochs epochs are kept; when all of them are younger than the
// timeout, a sweep extends the current epoch instead of starting one (so a
// caller sweeping in a loop cannot push old epochs out before they expire).
#ifndef ROCKPOOL_COMPRESSION_POOL_SWEEP_EPOCHS_H_
#define ROCKPOOL_COMPRESSION_POOL_SWEEP_EPOCHS_H_

#include <cstddef>
#include <cstdint>

#include "absl/time/time.h"

namespace rockpool::pool_internal {

class SweepEpochs {
 public:
  explicit SweepEpochs(absl::Time now) { starts_[0] = now; }

  uint64_t current() const { return current_; }

  // A new time source: what is idle now counts as idle since `now`.
  void Restart(absl::Time now) {
    oldest_ = current_;
    Start(current_) = now;
  }

  // Starts a new epoch at `now` (when there is room) and returns the bound
  // below which stamps have expired: a context stamped s < bound has been idle
  // at least `timeout`. 0: none has.
  uint64_t Sweep(absl::Time now, absl::Duration timeout);

 private:
  static constexpr size_t kEpochs = 64;
  absl::Time& Start(uint64_t epoch) { return starts_[epoch % kEpochs]; }

  uint64_t current_ = 0;
  uint64_t oldest_ = 0;         // oldest epoch whose start is kept
  uint64_t expired_below_ = 0;  // monotonic
  absl::Time starts_[kEpochs];
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_SWEEP_EPOCHS_H_
