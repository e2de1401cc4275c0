// absl::Mutex with ThreadSanitizer annotations.
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

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ANNOTATED_MUTEX_H_
