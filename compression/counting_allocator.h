// Counting allocator: every byte the codec libraries (zstd, zlib, LZ4) allocate for
// rockpool's contexts goes through here, so the pool can report exactly how
// many bytes and calls the libraries made. Test builds (ROCKPOOL_DEBUG_CHECKS,
// compression/debug_check.h) can also attribute allocations to tags and fail
// them on demand (the injector of counting_allocator_testing.h, through the
// seam below); other builds leave both out of the allocation path and have
// neither the seam nor the injector.
//
// Two levels of accounting:
//   AllocationStats    shared totals (thread-safe atomics), one per pool.
//   CountingAllocator  one per codec context: bytes that context holds right
//                      now, plus forwarding into its AllocationStats.
//
// A CountingAllocator is used by one thread at a time (the one holding the
// context); AllocationStats may be read by any thread at any time. It knows
// no codec: the callbacks in each library's shape (zstd's customMem, zlib's
// zalloc/zfree) belong to the contexts (zstd_contexts.h, zlib_contexts.h).
#ifndef ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_H_
#define ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "compression/debug_check.h"
#include "compression/fast_tls.h"

namespace rockpool {

// Snapshot of an AllocationStats.
struct AllocationCounts {
  uint64_t bytes_allocated = 0;  // total bytes ever requested
  uint64_t allocations = 0;      // successful allocation calls
  uint64_t frees = 0;            // free calls (non-null)
  uint64_t failed = 0;           // allocation calls that returned null
  int64_t bytes_live = 0;        // allocated and not yet freed

  // Adds b's counters (the sum of two allocators, or of two snapshots' gains).
  AllocationCounts& operator+=(const AllocationCounts& b) {
    bytes_allocated += b.bytes_allocated;
    allocations += b.allocations;
    frees += b.frees;
    failed += b.failed;
    bytes_live += b.bytes_live;
    return *this;
  }
};

class AllocationStats {
 public:
  AllocationCounts Read() const;

  // Called by CountingAllocator.
  void OnAllocate(size_t bytes);
  void OnFree(size_t bytes);
  void OnFailure();

 private:
  std::atomic<uint64_t> bytes_allocated_{0};
  std::atomic<uint64_t> allocations_{0};
  std::atomic<uint64_t> frees_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<int64_t> bytes_live_{0};
};

class CountingAllocator {
 public:
  // `stats` may be null (no shared totals). It must outlive this allocator.
  explicit CountingAllocator(AllocationStats* stats) : stats_(stats) {}
  CountingAllocator(const CountingAllocator&) = delete;
  CountingAllocator& operator=(const CountingAllocator&) = delete;

  // Returns null on failure (real or injected). Memory is aligned for any
  // object type (alignof(std::max_align_t)).
  void* Allocate(size_t bytes);
  // Accepts null.
  void Free(void* p);

  // Bytes this allocator has handed out and not yet taken back.
  int64_t bytes_live() const { return bytes_live_; }
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  uint64_t allocations() const { return allocations_; }

 private:
  AllocationStats* const stats_;
  int64_t bytes_live_ = 0;
  uint64_t bytes_allocated_ = 0;
  uint64_t allocations_ = 0;
};

// Library bytes a context holds now: every context type has an allocator().
template <typename Context>
size_t LibraryBytesHeld(const Context& context) {
  return static_cast<size_t>(context.allocator().bytes_live());
}

// Attribution of codec-library allocations to whoever tagged the running
// thread, in test builds only: a caller sets a tag (ScopedAllocationTag, a
// thread-local store) and every CountingAllocator allocation made meanwhile
// is added to that tag's process-wide totals. The tags' meaning is the
// caller's: the legacy face tags the RocksDB calls it serves
// (rocksdb_plugin/legacy/runtime.h, AllocationSite), which is how the
// reallocation inside pooled zstd contexts was traced to RocksDB's compress
// calls. Outside test builds a tag is an empty object and every total reads
// zero: the allocation path neither reads the tag nor adds to shared totals.
inline constexpr int kAllocationTags = 8;  // tag 0: untagged

#if ROCKPOOL_DEBUG_CHECKS_ON
// The running thread's tag (counting_allocator.cc).
extern ROCKPOOL_FAST_TLS int tls_allocation_tag;

class ScopedAllocationTag {
 public:
  // 0 <= tag < kAllocationTags (others count as untagged).
  explicit ScopedAllocationTag(int tag) noexcept : previous_(tls_allocation_tag) {
    tls_allocation_tag = tag >= 0 && tag < kAllocationTags ? tag : 0;
  }
  ~ScopedAllocationTag() { tls_allocation_tag = previous_; }
  ScopedAllocationTag(const ScopedAllocationTag&) = delete;
  ScopedAllocationTag& operator=(const ScopedAllocationTag&) = delete;

 private:
  int previous_;
};
#else
class ScopedAllocationTag {
 public:
  explicit ScopedAllocationTag(int) noexcept {}
  ScopedAllocationTag(const ScopedAllocationTag&) = delete;
  ScopedAllocationTag& operator=(const ScopedAllocationTag&) = delete;
};
#endif

// Totals of one tag since the process started (bytes_allocated and
// allocations; frees are not attributed). Zero outside test builds.
AllocationCounts TaggedAllocations(int tag);

#if ROCKPOOL_DEBUG_CHECKS_ON
namespace counting_allocator_internal {
// The allocation path's one seam, in test builds only: when set, Allocate
// asks it (after a relaxed load) whether this allocation is to fail. Null
// unless a test arms counting_allocator_testing.h's injector, the only
// writer; other builds have no seam, so nothing that ships can be made to
// fail an allocation, and the path costs what it did without one.
using RefuseHook = bool (*)();
extern std::atomic<RefuseHook> refuse_hook;
}  // namespace counting_allocator_internal
#endif

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_H_
