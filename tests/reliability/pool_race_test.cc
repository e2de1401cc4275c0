// Focused races on the pool's lock-free front (per-stripe slots), with a
// trivial context so millions of lease/return cycles fit in a second. Meant
// for --config=tsan (tagged "concurrency"), where a data race fails the test;
// in the other builds they check the books and that no context is lost or
// freed twice (ASan).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "compression/context_pool.h"

namespace rockpool {
namespace {

struct TinyContext {
  int uses = 0;
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
  size_t BytesHeld(const Context&) { return 64; }
};

using TinyPool = ContextPool<TinyPolicy>;

constexpr auto kRunFor = std::chrono::milliseconds(1500);

// A clock that does not synchronize threads. absl::Now() does, as far as
// TSan can tell (Abseil's time code takes an annotated lock), which would
// hide races between the threads that read it.
std::atomic<int64_t> fake_nanos{0};
absl::Time FakeNow() {
  return absl::FromUnixNanos(fake_nanos.fetch_add(1, std::memory_order_relaxed));
}

// Workers cycle leases through their stripes' slots while another thread runs
// the expiry scan (which looks at slot entries) and Trim() as fast as it can.
// Regression test for two races found by it under clang's TSan:
//  - Return() read entry->since after publishing the entry in its slot, where
//    Trim() on another thread could already have freed it (use after free);
//  - the expiry scan read entry->since of an entry still in a slot, which its
//    owner could lease and rewrite (or free) meanwhile.
TEST(PoolRaceTest, ExpiryScanAndTrimRaceWithLeaseCycles) {
  PoolOptions options;
  options.max_idle_per_key = 4;
  options.idle_timeout = absl::Hours(1);  // the scan runs; nothing is old enough
  options.now = &FakeNow;
  TinyPool pool(options);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> cycles{0}, scans{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      while (!stop.load(std::memory_order_relaxed)) {
        auto lease = pool.Acquire(t % 2);
        ASSERT_TRUE(lease.ok());
        (*lease)->uses++;
        lease->reset();
        // Leave the context idle in this thread's slot for a moment, where
        // the expiry scan and Trim() find it.
        for (int spin = 0; spin < 100; ++spin) cycles.load(std::memory_order_relaxed);
        cycles.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  threads.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      pool.ReleaseExpired();
      if (scans.fetch_add(1, std::memory_order_relaxed) % 64 == 0) pool.Trim();
    }
  });
  std::this_thread::sleep_for(kRunFor);
  stop.store(true);
  for (std::thread& t : threads) t.join();
  std::printf("%llu lease cycles, %llu expiry scans\n",
              static_cast<unsigned long long>(cycles.load()),
              static_cast<unsigned long long>(scans.load()));
  const PoolStats s = pool.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.created, s.destroyed + s.idle);
  pool.Trim();
  EXPECT_EQ(pool.stats().created, pool.stats().destroyed);
}

}  // namespace
}  // namespace rockpool
