#include "compression/counting_allocator.h"

#include <cstdlib>
#include <cstring>
#include <limits>

#include "compression/debug_check.h"
#include "compression/fast_tls.h"

namespace rockpool {
namespace {

// Each block carries its size in a header so Free() can account for it.
// The header is max_align_t-sized so the payload keeps malloc's alignment.
constexpr size_t kHeader = alignof(std::max_align_t);
static_assert(kHeader >= sizeof(size_t));

#if ROCKPOOL_DEBUG_CHECKS_ON
AllocationStats g_tag_stats[kAllocationTags];
#endif

// Whether this allocation is to fail without asking malloc.
bool RefuseAllocation(size_t bytes) {
  if (bytes > std::numeric_limits<size_t>::max() - kHeader) return true;
#if ROCKPOOL_DEBUG_CHECKS_ON
  const counting_allocator_internal::RefuseHook hook =
      counting_allocator_internal::refuse_hook.load(std::memory_order_relaxed);
  return hook != nullptr && hook();
#else
  return false;
#endif
}

}  // namespace

#if ROCKPOOL_DEBUG_CHECKS_ON
std::atomic<counting_allocator_internal::RefuseHook> counting_allocator_internal::refuse_hook{
    nullptr};

ROCKPOOL_FAST_TLS int tls_allocation_tag = 0;

AllocationCounts TaggedAllocations(int tag) {
  if (tag < 0 || tag >= kAllocationTags) return {};
  return g_tag_stats[tag].Read();
}
#else
AllocationCounts TaggedAllocations(int) { return {}; }
#endif

AllocationCounts AllocationStats::Read() const {
  AllocationCounts c;
  c.bytes_allocated = bytes_allocated_.load(std::memory_order_relaxed);
  c.allocations = allocations_.load(std::memory_order_relaxed);
  c.frees = frees_.load(std::memory_order_relaxed);
  c.failed = failed_.load(std::memory_order_relaxed);
  c.bytes_live = bytes_live_.load(std::memory_order_relaxed);
  return c;
}

void AllocationStats::OnAllocate(size_t bytes) {
  bytes_allocated_.fetch_add(bytes, std::memory_order_relaxed);
  allocations_.fetch_add(1, std::memory_order_relaxed);
  bytes_live_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

void AllocationStats::OnFree(size_t bytes) {
  frees_.fetch_add(1, std::memory_order_relaxed);
  bytes_live_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

void AllocationStats::OnFailure() { failed_.fetch_add(1, std::memory_order_relaxed); }

void* CountingAllocator::Allocate(size_t bytes) {
  if (RefuseAllocation(bytes)) {
    if (stats_ != nullptr) stats_->OnFailure();
    return nullptr;
  }
  void* raw = std::malloc(bytes + kHeader);
  if (raw == nullptr) {
    if (stats_ != nullptr) stats_->OnFailure();
    return nullptr;
  }
  std::memcpy(raw, &bytes, sizeof(bytes));
  bytes_live_ += static_cast<int64_t>(bytes);
  bytes_allocated_ += bytes;
  ++allocations_;
  if (stats_ != nullptr) stats_->OnAllocate(bytes);
#if ROCKPOOL_DEBUG_CHECKS_ON
  g_tag_stats[tls_allocation_tag].OnAllocate(bytes);
#endif
  return static_cast<char*>(raw) + kHeader;
}

void CountingAllocator::Free(void* p) {
  if (p == nullptr) return;
  void* raw = static_cast<char*>(p) - kHeader;
  size_t bytes;
  std::memcpy(&bytes, raw, sizeof(bytes));
  bytes_live_ -= static_cast<int64_t>(bytes);
  if (stats_ != nullptr) stats_->OnFree(bytes);
  std::free(raw);
}

}  // namespace rockpool
