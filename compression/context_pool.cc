#include "compression/context_pool.h"

namespace rockpool::pool_internal {

size_t ThreadStripe() {
  static std::atomic<size_t> next{0};
  thread_local const size_t stripe = next.fetch_add(1, std::memory_order_relaxed);
  return stripe;
}

}  // namespace rockpool::pool_internal
