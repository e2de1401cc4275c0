// absl::Mutex with ThreadSanitizer annotations: a lock, and a wait on a
// condition variable under it.
//
// Debian's libabsl is not built with TSan, so TSan cannot see absl::Mutex
// acquire/release and reports races on every field it guards. Under TSan
// (ROCKPOOL_TSAN, set by --config=tsan) the lock below tells TSan about the
// happens-before edges itself; real races on unguarded state stay visible.
// Without TSan it is exactly absl::MutexLock.
#ifndef ROCKPOOL_COMPRESSION_ANNOTATED_MUTEX_H_
#define ROCKPOOL_COMPRESSION_ANNOTATED_MUTEX_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#if defined(ROCKPOOL_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace rockpool {

class ABSL_SCOPED_LOCKABLE AnnotatedMutexLock {
 public:
  explicit AnnotatedMutexLock(absl::Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
#if defined(ROCKPOOL_TSAN)
    __tsan_acquire(mu_);
#endif
  }
  ~AnnotatedMutexLock() ABSL_UNLOCK_FUNCTION() {
#if defined(ROCKPOOL_TSAN)
    __tsan_release(mu_);
#endif
    mu_->Unlock();
  }
  AnnotatedMutexLock(const AnnotatedMutexLock&) = delete;
  AnnotatedMutexLock& operator=(const AnnotatedMutexLock&) = delete;

 private:
  absl::Mutex* const mu_;
};

// cv->WaitWithTimeout(mu, timeout) for a holder of an AnnotatedMutexLock on
// `mu`: the wait releases and retakes `mu` inside the library TSan cannot
// see, so TSan is told the same. Returns true if the wait timed out.
inline bool AnnotatedWaitWithTimeout(absl::CondVar* cv, absl::Mutex* mu, absl::Duration timeout)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
#if defined(ROCKPOOL_TSAN)
  __tsan_release(mu);
#endif
  const bool timed_out = cv->WaitWithTimeout(mu, timeout);
#if defined(ROCKPOOL_TSAN)
  __tsan_acquire(mu);
#endif
  return timed_out;
}

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ANNOTATED_MUTEX_H_
