// Allocation fault injection for tests: makes CountingAllocator::Allocate
// (counting_allocator.h) fail on demand, process-wide, for every allocator.
// A testonly target (//compression:counting_allocator_testing): nothing that
// ships links it. It works in test builds only (ROCKPOOL_DEBUG_CHECKS, which
// `bazel test` and the sanitizer configs define): other builds have no seam
// in the allocation path, so arming it there has no effect.
//
// Its state is atomic: allocations on any thread see it. Which of several
// concurrent allocations is "the nth" is theirs to race for, so a walk that
// needs an exact n runs its operation on one thread.
#ifndef ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_TESTING_H_
#define ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_TESTING_H_

#include <cstdint>

namespace rockpool {

class AllocationFaultInjectorForTesting {
 public:
  // The nth allocation from now (1 = the next one) fails; 0 disarms.
  static void FailNthAllocation(uint64_t n);
  // Every allocation fails while armed (until Disarm()).
  static void FailAll();
  // No allocation fails; counting stops.
  static void Disarm();
  // Counts allocation calls from now on (until Disarm()).
  static void StartCounting();
  // Allocation calls counted since StartCounting().
  static uint64_t CountedCalls();
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_COUNTING_ALLOCATOR_TESTING_H_
