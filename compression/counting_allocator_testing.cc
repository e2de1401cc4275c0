#include "compression/counting_allocator_testing.h"

#include <atomic>
#include <cstdint>

#include "compression/counting_allocator.h"
#include "compression/debug_check.h"

namespace rockpool {
namespace {

// `countdown` > 0: that many allocations until the failing one; -1: fail
// everything; 0: disarmed.
std::atomic<int64_t> countdown{0};
std::atomic<bool> counting{false};
std::atomic<uint64_t> counted_calls{0};

#if ROCKPOOL_DEBUG_CHECKS_ON
// The seam's hook: true if this allocation must fail.
bool ShouldFail() {
  if (counting.load(std::memory_order_relaxed)) {
    counted_calls.fetch_add(1, std::memory_order_relaxed);
  }
  int64_t c = countdown.load(std::memory_order_relaxed);
  if (c == 0) return false;
  if (c < 0) return true;
  // Exactly one caller observes the transition 1 -> 0.
  while (c > 0) {
    if (countdown.compare_exchange_weak(c, c - 1, std::memory_order_relaxed)) {
      return c == 1;
    }
  }
  return c < 0;
}

// Puts ShouldFail in the allocation path. It stays there: disarmed, it
// answers false.
void InstallHook() {
  counting_allocator_internal::refuse_hook.store(&ShouldFail, std::memory_order_relaxed);
}
#else
// Other builds have no seam (counting_allocator.h): arming changes nothing.
void InstallHook() {}
#endif

}  // namespace

void AllocationFaultInjectorForTesting::FailNthAllocation(uint64_t n) {
  InstallHook();
  countdown.store(static_cast<int64_t>(n), std::memory_order_relaxed);
}

void AllocationFaultInjectorForTesting::FailAll() {
  InstallHook();
  countdown.store(-1, std::memory_order_relaxed);
}

void AllocationFaultInjectorForTesting::Disarm() {
  countdown.store(0, std::memory_order_relaxed);
  counting.store(false, std::memory_order_relaxed);
}

void AllocationFaultInjectorForTesting::StartCounting() {
  InstallHook();
  counted_calls.store(0, std::memory_order_relaxed);
  counting.store(true, std::memory_order_relaxed);
}

uint64_t AllocationFaultInjectorForTesting::CountedCalls() {
  return counted_calls.load(std::memory_order_relaxed);
}

}  // namespace rockpool
