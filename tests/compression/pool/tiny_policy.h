// A trivial pool policy for tests of the pool's own machinery: contexts
// carry one counter a test may set, which Reset() clears, and hold `bytes`
// library bytes (64 unless a test sets another size).
#ifndef ROCKPOOL_TESTS_COMPRESSION_POOL_TINY_POLICY_H_
#define ROCKPOOL_TESTS_COMPRESSION_POOL_TINY_POLICY_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/context_pool.h"

namespace rockpool {

struct TinyContext {
  int uses = 0;
  size_t bytes = 64;
};

struct TinyPolicy {
  using Context = TinyContext;
  using Key = int;
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key&, AllocationStats* stats) {
    stats->OnAllocate(64);
    return std::make_unique<Context>();
  }
  absl::Status Reset(Context& c) {
    c.uses = 0;
    return absl::OkStatus();
  }
  size_t BytesHeld(const Context& c) { return c.bytes; }
};

using TinyPool = ContextPool<TinyPolicy>;

}  // namespace rockpool

#endif  // ROCKPOOL_TESTS_COMPRESSION_POOL_TINY_POLICY_H_
