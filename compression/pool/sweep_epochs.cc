#include "compression/pool/sweep_epochs.h"

namespace rockpool::pool_internal {

uint64_t SweepEpochs::Sweep(absl::Time now, absl::Duration timeout) {
  if (timeout == absl::InfiniteDuration()) return expired_below_;
  const absl::Time cutoff = now - timeout;
  // The newest epoch that started at or before the cutoff: every stamp
  // below it belongs to an epoch that ended by then.
  auto advance_bound = [&] {
    while (oldest_ <= current_ && Start(oldest_) <= cutoff) {
      if (oldest_ > expired_below_) expired_below_ = oldest_;
      if (oldest_ == current_) break;
      ++oldest_;
    }
  };
  advance_bound();
  if (current_ - oldest_ + 1 < kEpochs) {
    ++current_;
    Start(current_) = now;
    advance_bound();  // a zero timeout expires what was returned before now
  }
  return expired_below_;
}

}  // namespace rockpool::pool_internal
