#include "compression/pool/thread_front.h"

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compression/annotated_mutex.h"

namespace rockpool::pool_internal {
namespace {

// Which indices live threads hold. Never destroyed: threads may exit (and
// hand their index back) after static destructors have run.
class ShardRegistry {
 public:
  static ShardRegistry& Get() {
    static ShardRegistry* const registry = new ShardRegistry;
    return *registry;
  }

  size_t Take() {
    AnnotatedMutexLock lock(&mu_);
    for (size_t word = 0; word < kWords; ++word) {
      if (~used_[word] == 0) continue;
      const size_t bit = static_cast<size_t>(__builtin_ctzll(~used_[word]));
      used_[word] |= uint64_t{1} << bit;
      const size_t index = word * 64 + bit;
      if (index + 1 > in_use_.load(std::memory_order_relaxed)) {
        in_use_.store(index + 1, std::memory_order_release);
      }
      return index;
    }
    return kSharedShard;
  }

  void Give(size_t index) {
    AnnotatedMutexLock lock(&mu_);
    used_[index / 64] &= ~(uint64_t{1} << (index % 64));
  }

  size_t InUse() const { return in_use_.load(std::memory_order_acquire); }

 private:
  static constexpr size_t kWords = kThreadShards / 64;
  absl::Mutex mu_;
  uint64_t used_[kWords] ABSL_GUARDED_BY(mu_) = {};
  std::atomic<size_t> in_use_{0};
};

// Gives the index back when the thread exits. Afterwards (other
// thread_local destructors may still use a pool) the thread writes to the
// shared shard.
struct ShardReturner {
  ~ShardReturner() {
    const int32_t shard = tls_thread_shard;
    tls_thread_shard = static_cast<int32_t>(kSharedShard);
    if (shard >= 0 && static_cast<size_t>(shard) < kThreadShards) {
      ShardRegistry::Get().Give(static_cast<size_t>(shard));
    }
  }
};

}  // namespace

ROCKPOOL_FAST_TLS int32_t tls_thread_shard = -1;

size_t AssignThreadShard() {
  const size_t index = ShardRegistry::Get().Take();
  tls_thread_shard = static_cast<int32_t>(index);
  if (index != kSharedShard) {
    thread_local ShardReturner returner;  // registers the exit hook
    (void)returner;
  }
  return index;
}

size_t ThreadShardsInUse() { return ShardRegistry::Get().InUse(); }

}  // namespace rockpool::pool_internal
