// A pool whose construction cannot allocate still keeps the contract of
// compression/context_pool.h: no exception, and every lease refused with
// ResourceExhausted (callers fall back as when a context cannot be made).
// The failures are real ones at the allocator's edge: this binary replaces
// mmap (the statistics pages) and the aligned nothrow operator new[] (the
// stripe slots and the statistics' fallback) with versions that fail while
// the constructing thread asks them to.
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <memory>
#include <new>

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/context_pool.h"
#include "compression/context_pool_testing.h"
#include "tests/compression/pool/tiny_policy.h"

namespace {
thread_local bool fail_mmap = false;
thread_local bool fail_aligned_new = false;
}  // namespace

extern "C" void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (fail_mmap) {
    errno = ENOMEM;
    return MAP_FAILED;
  }
  return reinterpret_cast<void*>(::syscall(SYS_mmap, addr, length, prot, flags, fd, offset));
}

void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  if (fail_aligned_new) return nullptr;
  try {
    return ::operator new[](size, align);  // the throwing form: deleted as usual
  } catch (...) {
    return nullptr;
  }
}

namespace rockpool {
namespace {

// Builds a pool while the named allocations fail.
std::unique_ptr<TinyPool> BuildFailing(bool mmap_fails, bool aligned_new_fails) {
  auto* storage = static_cast<TinyPool*>(::operator new(sizeof(TinyPool)));
  fail_mmap = mmap_fails;
  fail_aligned_new = aligned_new_fails;
  TinyPool* pool = new (storage) TinyPool();
  fail_mmap = false;
  fail_aligned_new = false;
  return std::unique_ptr<TinyPool>(pool);
}

TEST(ConstructionFailureTest, NothingAllocatableRefusesEveryLease) {
  std::unique_ptr<TinyPool> pool = BuildFailing(true, true);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<TinyPool::Lease> lease = pool->Acquire(i % 2);
    ASSERT_FALSE(lease.ok());
    EXPECT_EQ(lease.status().code(), absl::StatusCode::kResourceExhausted);
  }
  const PoolStats s = pool->stats();
  EXPECT_EQ(s.created, 0u);
  EXPECT_EQ(s.reused, 0u);
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.idle, 0u);
  EXPECT_EQ(pool->Trim(), 0u);
  EXPECT_EQ(pool->ReleaseExpired(), 0u);
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(*pool).ok());
}

TEST(ConstructionFailureTest, NoStripeSlotsRefusesEveryLease) {
  std::unique_ptr<TinyPool> pool = BuildFailing(false, true);
  absl::StatusOr<TinyPool::Lease> lease = pool->Acquire(1);
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(pool->stats().created, 0u);
}

// Without the mapping the statistics live in an ordinary allocation, and the
// pool works and counts as usual.
TEST(ConstructionFailureTest, NoMappingFallsBackAndCounts) {
  std::unique_ptr<TinyPool> pool = BuildFailing(true, false);
  for (int round = 0; round < 3; ++round) {
    absl::StatusOr<TinyPool::Lease> lease = pool->Acquire(7);
    ASSERT_TRUE(lease.ok()) << lease.status();
    EXPECT_EQ((*lease)->uses, 0) << "a reused context is reset";
    (*lease)->uses = round + 1;
  }
  const PoolStats s = pool->stats();
  EXPECT_EQ(s.created, 1u);
  EXPECT_EQ(s.reused, 2u);
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.idle, 1u);
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(*pool).ok());
  EXPECT_EQ(pool->Trim(), 1u);
  EXPECT_EQ(pool->stats().destroyed, 1u);
}

}  // namespace
}  // namespace rockpool
