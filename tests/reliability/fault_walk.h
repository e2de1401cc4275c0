// Allocation fault walks: run an operation once to count the allocations it
// makes through the counting allocator, then once per allocation with exactly
// that allocation failing (AllocationFaultInjectorForTesting::FailNthAllocation).
//
// Each run must end in an error status, or in OK with a verified result (a
// library may survive a failed optional allocation); after each run the
// caller checks that nothing leaked and the books balance.
#ifndef ROCKPOOL_TESTS_RELIABILITY_FAULT_WALK_H_
#define ROCKPOOL_TESTS_RELIABILITY_FAULT_WALK_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "compression/compression_pools.h"
#include "compression/counting_allocator_testing.h"

namespace rockpool::reliability {

// Disarms the injector when a test ends, even on a failed ASSERT.
class ScopedFaultInjection {
 public:
  ScopedFaultInjection() { AllocationFaultInjectorForTesting::Disarm(); }
  ~ScopedFaultInjection() { AllocationFaultInjectorForTesting::Disarm(); }
};

struct WalkReport {
  uint64_t allocations = 0;  // counted in the clean run
  uint64_t errors = 0;       // runs that returned an error status
  uint64_t survived = 0;     // runs that returned OK despite the failure
};

// For the clean run (attempt 0) and then once per allocation n that run
// made: `setup()` with the injector disarmed, `op()` with allocation n
// failing, then `check(n, status)` disarmed again.
inline WalkReport WalkAllocationFailures(
    const std::string& name, const std::function<void()>& setup,
    const std::function<absl::Status()>& op,
    const std::function<void(uint64_t, const absl::Status&)>& check) {
  ScopedFaultInjection scoped;
  WalkReport report;
  setup();
  AllocationFaultInjectorForTesting::StartCounting();
  const absl::Status clean = op();
  report.allocations = AllocationFaultInjectorForTesting::CountedCalls();
  AllocationFaultInjectorForTesting::Disarm();
  EXPECT_TRUE(clean.ok()) << name << ": clean run failed: " << clean;
  check(0, clean);
  for (uint64_t n = 1; n <= report.allocations; ++n) {
    SCOPED_TRACE(name + ": allocation " + std::to_string(n) + " of " +
                 std::to_string(report.allocations) + " fails");
    setup();
    AllocationFaultInjectorForTesting::FailNthAllocation(n);
    const absl::Status s = op();
    AllocationFaultInjectorForTesting::Disarm();
    if (s.ok()) {
      ++report.survived;
    } else {
      ++report.errors;
    }
    check(n, s);
    if (::testing::Test::HasFatalFailure()) break;
  }
  std::printf("[ walk     ] %-40s %4llu allocations: %4llu errors, %4llu survived\n", name.c_str(),
              static_cast<unsigned long long>(report.allocations),
              static_cast<unsigned long long>(report.errors),
              static_cast<unsigned long long>(report.survived));
  return report;
}

// The books of one pool balance when no lease is out.
inline void ExpectBalanced(const PoolStats& s, const std::string& pool) {
  EXPECT_EQ(s.in_use, 0u) << pool;
  EXPECT_EQ(s.created, s.destroyed + s.idle) << pool;
  EXPECT_GE(s.library.bytes_live, 0) << pool;
  EXPECT_EQ(static_cast<uint64_t>(s.library.bytes_live), s.idle_bytes) << pool;
  EXPECT_EQ(s.library.allocations >= s.library.frees, true) << pool;
}

inline void ExpectBalanced(const CompressionPoolsStats& all) {
  ExpectBalanced(all.zstd_compress, "zstd_compress");
  ExpectBalanced(all.zstd_decompress, "zstd_decompress");
  ExpectBalanced(all.deflate, "deflate");
  ExpectBalanced(all.inflate, "inflate");
}

// After Trim() nothing is held: every context ever created is destroyed and
// every library byte freed.
inline void ExpectEmptyAfterTrim(CompressionPools& pools) {
  pools.Trim();
  const CompressionPoolsStats all = pools.stats();
  for (const PoolStats* s :
       {&all.zstd_compress, &all.zstd_decompress, &all.deflate, &all.inflate}) {
    EXPECT_EQ(s->idle, 0u);
    EXPECT_EQ(s->idle_bytes, 0u);
    EXPECT_EQ(s->created, s->destroyed);
    EXPECT_EQ(s->library.bytes_live, 0);
    EXPECT_EQ(s->library.allocations, s->library.frees);
  }
}

}  // namespace rockpool::reliability

#endif  // ROCKPOOL_TESTS_RELIABILITY_FAULT_WALK_H_
