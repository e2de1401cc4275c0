#include "compression/counting_allocator.h"

#include <gtest/gtest.h>

#include "compression/counting_allocator_testing.h"

#include <cstdint>
#include <cstring>

namespace rockpool {
namespace {

TEST(CountingAllocatorTest, CountsBytesCallsAndLiveBytes) {
  AllocationStats stats;
  CountingAllocator a(&stats);
  void* p = a.Allocate(1000);
  void* q = a.Allocate(24);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t), 0u);
  std::memset(p, 0xab, 1000);
  EXPECT_EQ(a.bytes_live(), 1024);
  a.Free(p);
  EXPECT_EQ(a.bytes_live(), 24);
  a.Free(q);
  a.Free(nullptr);
  AllocationCounts c = stats.Read();
  EXPECT_EQ(c.bytes_allocated, 1024u);
  EXPECT_EQ(c.allocations, 2u);
  EXPECT_EQ(c.frees, 2u);
  EXPECT_EQ(c.bytes_live, 0);
}

TEST(CountingAllocatorTest, FailsExactlyTheNthAllocation) {
  AllocationStats stats;
  CountingAllocator a(&stats);
  AllocationFaultInjectorForTesting::FailNthAllocation(3);
  void* p1 = a.Allocate(8);
  void* p2 = a.Allocate(8);
  void* p3 = a.Allocate(8);
  void* p4 = a.Allocate(8);
  AllocationFaultInjectorForTesting::Disarm();
  EXPECT_NE(p1, nullptr);
  EXPECT_NE(p2, nullptr);
  EXPECT_EQ(p3, nullptr);
  EXPECT_NE(p4, nullptr);
  EXPECT_EQ(stats.Read().failed, 1u);
  a.Free(p1);
  a.Free(p2);
  a.Free(p4);
  EXPECT_EQ(a.bytes_live(), 0);
}

TEST(CountingAllocatorTest, CountsCallsForFaultWalks) {
  CountingAllocator a(nullptr);
  AllocationFaultInjectorForTesting::StartCounting();
  a.Free(a.Allocate(1));
  a.Free(a.Allocate(2));
  EXPECT_EQ(AllocationFaultInjectorForTesting::CountedCalls(), 2u);
  AllocationFaultInjectorForTesting::Disarm();
}

}  // namespace
}  // namespace rockpool
