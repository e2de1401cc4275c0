// HandleRegistry: which raw codec handles in the process are leases rockpool
// handed out, and the pooled context behind each.
//
// Why a table: a zstd context and a zlib stream carry rockpool's allocator,
// which leads back to the pooled context with no lookup. An LZ4 stream is
// only its state: nothing in it is rockpool's. And a free of a handle
// rockpool never handed out must reach the library untouched, so nothing
// around a foreign pointer may be read (an allocator need not have mapped the
// bytes before it). So the free calls ask this table.
//
// Open addressing (linear probing, backward-shift deletion), sharded by
// pointer, one spin lock per shard held for one probe (a few dozen
// instructions; an absl::Mutex lock and unlock cost more than the malloc and
// free a pooled LZ4 stream saves: callgrind, db_bench lz4). No allocation
// except when a shard's table grows (to twice its size, at 3/4 full), which
// happens only when more handles are out at once than ever before.
// Thread-safe, never throws.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_HANDLE_REGISTRY_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_HANDLE_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace rockpool::legacy {

// A test-and-test-and-set lock for critical sections of a few dozen
// instructions; yields while another thread holds it.
class ABSL_LOCKABLE ShardLock {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

class ABSL_SCOPED_LOCKABLE ShardLockHolder {
 public:
  explicit ShardLockHolder(ShardLock* lock) ABSL_EXCLUSIVE_LOCK_FUNCTION(lock) : lock_(lock) {
    lock_->Lock();
  }
  ~ShardLockHolder() ABSL_UNLOCK_FUNCTION() { lock_->Unlock(); }
  ShardLockHolder(const ShardLockHolder&) = delete;
  ShardLockHolder& operator=(const ShardLockHolder&) = delete;

 private:
  ShardLock* const lock_;
};

class HandleRegistry {
 public:
  HandleRegistry() = default;
  HandleRegistry(const HandleRegistry&) = delete;
  HandleRegistry& operator=(const HandleRegistry&) = delete;
  ~HandleRegistry();

  // Records `handle` -> `value` (both non-null). False when out of memory:
  // the caller must not hand the handle out then.
  bool Add(const void* handle, void* value) noexcept;
  // The value recorded for `handle`, and forgets it; null if not recorded.
  void* Remove(const void* handle) noexcept;
  // The value recorded for `handle`, kept; null if not recorded.
  void* Find(const void* handle) const noexcept;
  // Handles recorded now.
  size_t size() const noexcept;

 private:
  struct Slot {
    const void* key = nullptr;
    void* value = nullptr;
  };
  struct Shard {
    mutable ShardLock mu;
    Slot* slots ABSL_GUARDED_BY(mu) = nullptr;
    size_t mask ABSL_GUARDED_BY(mu) = 0;  // capacity - 1 (a power of two), or 0
    size_t used ABSL_GUARDED_BY(mu) = 0;
  };
  static constexpr size_t kShards = 16;

  static uint64_t Hash(const void* p) {
    uint64_t x = reinterpret_cast<uintptr_t>(p);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
  }
  Shard& ShardOf(uint64_t hash) { return shards_[hash >> 60 & (kShards - 1)]; }
  static bool GrowLocked(Shard& shard) ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu);

  Shard shards_[kShards];
};

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_HANDLE_REGISTRY_H_
