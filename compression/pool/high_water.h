// The pool's high-water marks: the most contexts leased at once and the
// most library bytes its retained contexts held at once (PoolStats'
// peak_in_use and peak_retained_bytes; what each promises: the contract in
// compression/context_pool.h). Lock-free; updated off the lease fast path
// only (a lease that misses its stripe slot, a context joining, leaving or
// changing size in the retained set).
#ifndef ROCKPOOL_COMPRESSION_POOL_HIGH_WATER_H_
#define ROCKPOOL_COMPRESSION_POOL_HIGH_WATER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rockpool::pool_internal {

class HighWater {
 public:
  // `in_use` contexts are leased now (as one thread counted them).
  void NoteInUse(uint64_t in_use) { Raise(peak_in_use_, in_use); }

  // A retained context's recorded bytes go from `from` to `to` (0: it joins
  // or leaves the retained set; a context joins with bytes 0, as created).
  void ChangeRetainedBytes(size_t from, size_t to) {
    const int64_t delta = static_cast<int64_t>(to) - static_cast<int64_t>(from);
    const int64_t now = retained_bytes_.fetch_add(delta, std::memory_order_relaxed) + delta;
    if (delta > 0) Raise(peak_retained_bytes_, static_cast<uint64_t>(now));
  }

  uint64_t peak_in_use() const { return peak_in_use_.load(std::memory_order_relaxed); }
  // Never negative once every change is counted; read as 0 while a racing
  // removal is counted before its addition.
  uint64_t retained_bytes() const {
    const int64_t bytes = retained_bytes_.load(std::memory_order_relaxed);
    return bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
  }
  uint64_t peak_retained_bytes() const {
    return peak_retained_bytes_.load(std::memory_order_relaxed);
  }

 private:
  static void Raise(std::atomic<uint64_t>& peak, uint64_t value) {
    uint64_t seen = peak.load(std::memory_order_relaxed);
    while (value > seen && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
    }
  }

  std::atomic<uint64_t> peak_in_use_{0};
  std::atomic<int64_t> retained_bytes_{0};  // sum of retained contexts' bytes
  std::atomic<uint64_t> peak_retained_bytes_{0};
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_HIGH_WATER_H_
