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
#include "tests/compression/pool/tiny_policy.h"

namespace rockpool {
namespace {

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
  options.max_retained_per_key = 4;
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

// The cap, Trim() and expiry against slot hits. Workers lease one key
// (mostly slot hits, sometimes two leases at once so the lists and the cap
// are exercised); another thread flips the cap between 1 and 3, and a third
// sweeps expiry with a clock that really makes contexts old (the fake clock
// jumps an hour every few sweeps) and trims. Under TSan: no race between the
// sweep reading slot entries, the cap's retained counts and the fast path.
// Afterwards the books balance and the key keeps no more than the cap.
std::atomic<int64_t> jumping_nanos{0};
absl::Time JumpingNow() {
  return absl::FromUnixNanos(jumping_nanos.load(std::memory_order_relaxed));
}

TEST(PoolRaceTest, CapTrimAndExpiryRaceWithSlotHits) {
  PoolOptions options;
  options.max_retained_per_key = 3;
  options.idle_timeout = absl::Seconds(60);
  options.now = &JumpingNow;
  TinyPool pool(options);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> cycles{0}, sweeps{0}, cap_changes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      uint64_t i = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        auto lease = pool.Acquire(7);
        ASSERT_TRUE(lease.ok());
        EXPECT_EQ((*lease)->uses, 0) << "a context came back without its reset";
        (*lease)->uses++;
        if (++i % 16 == static_cast<uint64_t>(t)) {
          auto second = pool.Acquire(7);  // a miss: the lists and the cap
          ASSERT_TRUE(second.ok());
          (*second)->uses++;
        }
        cycles.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  threads.emplace_back([&] {
    PoolOptions o = options;
    while (!stop.load(std::memory_order_relaxed)) {
      o.max_retained_per_key = o.max_retained_per_key == 3 ? 1 : 3;
      pool.SetOptions(o);
      cap_changes.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::yield();
    }
  });
  threads.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const uint64_t n = sweeps.fetch_add(1, std::memory_order_relaxed);
      if (n % 4 == 0) jumping_nanos.fetch_add(3'600'000'000'000, std::memory_order_relaxed);
      pool.ReleaseExpired();
      if (n % 32 == 0) pool.Trim();
    }
  });
  std::this_thread::sleep_for(kRunFor);
  stop.store(true);
  for (std::thread& t : threads) t.join();
  std::printf("%llu lease cycles, %llu sweeps, %llu cap changes\n",
              static_cast<unsigned long long>(cycles.load()),
              static_cast<unsigned long long>(sweeps.load()),
              static_cast<unsigned long long>(cap_changes.load()));
  const PoolStats s = pool.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.created, s.destroyed + s.idle);
  EXPECT_LE(s.idle, 3u);
  EXPECT_EQ(s.idle_bytes, 64u * s.idle);
  EXPECT_GT(s.reused, 0u);
  // The last cap was 1 or 3; after setting 1 the key keeps at most one.
  options.max_retained_per_key = 1;
  pool.SetOptions(options);
  EXPECT_LE(pool.stats().idle, 1u);
  {
    auto a = pool.Acquire(7);
    auto b = pool.Acquire(7);
  }  // two come back, one is kept
  EXPECT_LE(pool.stats().idle, 1u);
  pool.Trim();
  EXPECT_EQ(pool.stats().created, pool.stats().destroyed);
  EXPECT_EQ(pool.stats().idle_bytes, 0u);
}

}  // namespace
}  // namespace rockpool
