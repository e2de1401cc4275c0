#include "compression/pool/thread_front.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compression/annotated_mutex.h"

namespace rockpool::pool_internal {
namespace {

// Which indices live threads hold. Never destroyed: threads may exit (and
// hand their index back) after static destructors have run.
class ShardRegistry {
 public:
  // In static storage, constructed in place (nothing to allocate, so a
  // thread's first pool operation cannot fail here).
  static ShardRegistry& Get() {
    alignas(ShardRegistry) static unsigned char storage[sizeof(ShardRegistry)];
    static ShardRegistry* const registry = new (storage) ShardRegistry;
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

ShardCounters::ShardCounters() {
  void* pages = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages != MAP_FAILED) {
    shards_ = static_cast<Shard*>(pages);  // zero-filled by the kernel
    mapped_ = true;
  } else {
    // Value-initialized: zeros. Null if this fails too (ok() is false).
    shards_ = new (std::nothrow) Shard[kThreadShards + 1]();
  }
}

int ShardCounters::ResidentPagesForTesting() const {
  if (!mapped_ || !ok()) return -1;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0) return -1;
  const size_t pages = (kBytes + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
  unsigned char in_memory[kBytes / 4096 + 1] = {};  // enough for pages of 4 KiB and up
  if (pages > sizeof(in_memory) || ::mincore(shards_, kBytes, in_memory) != 0) return -1;
  int resident = 0;
  for (size_t i = 0; i < pages; ++i) resident += in_memory[i] & 1;
  return resident;
}

ShardCounters::~ShardCounters() {
  if (mapped_) {
    ::munmap(shards_, kBytes);
  } else {
    delete[] shards_;
  }
}

}  // namespace rockpool::pool_internal
