// HandleRegistry: every handle added is found once and only once, through
// growth and backward-shift deletion in any order; unknown handles are not
// found; concurrent adds and removes on many threads stay exact.
#include "rocksdb_plugin/legacy/handle_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace rockpool::legacy {
namespace {

// Distinct fake handles, 64-byte aligned like allocations (the worst case
// for a hash of the low bits).
const void* Handle(uintptr_t i) { return reinterpret_cast<const void*>((i + 1) * 64); }
void* Value(uintptr_t i) { return reinterpret_cast<void*>((i + 1) * 8); }

TEST(HandleRegistryTest, AddRemoveThroughGrowthInRandomOrder) {
  HandleRegistry registry;
  constexpr uintptr_t kCount = 5000;
  for (uintptr_t i = 0; i < kCount; ++i) ASSERT_TRUE(registry.Add(Handle(i), Value(i)));
  EXPECT_EQ(registry.size(), kCount);
  EXPECT_EQ(registry.Remove(Handle(kCount + 7)), nullptr);  // never added
  EXPECT_EQ(registry.Remove(nullptr), nullptr);
  EXPECT_EQ(registry.Find(Handle(kCount + 7)), nullptr);
  EXPECT_EQ(registry.Find(nullptr), nullptr);
  std::vector<uintptr_t> order(kCount);
  for (uintptr_t i = 0; i < kCount; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  for (size_t n = 0; n < order.size(); ++n) {
    ASSERT_EQ(registry.Remove(Handle(order[n])), Value(order[n])) << n;
    ASSERT_EQ(registry.Remove(Handle(order[n])), nullptr) << n;  // only once
    ASSERT_EQ(registry.Find(Handle(order[n])), nullptr) << n;
    if (n % 500 == 0) {
      // Everything not yet removed is still found, kept by Find (then
      // removed and put back).
      for (size_t m = n + 1; m < order.size(); m += 97) {
        ASSERT_EQ(registry.Find(Handle(order[m])), Value(order[m]));
        ASSERT_EQ(registry.Find(Handle(order[m])), Value(order[m]));
        ASSERT_EQ(registry.Remove(Handle(order[m])), Value(order[m]));
        ASSERT_TRUE(registry.Add(Handle(order[m]), Value(order[m])));
      }
    }
  }
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_FALSE(registry.Add(nullptr, Value(1)));
  EXPECT_FALSE(registry.Add(Handle(1), nullptr));
}

TEST(HandleRegistryTest, ManyThreadsAddAndRemoveTheirOwn) {
  HandleRegistry registry;
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (uintptr_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (uintptr_t i = 0; i < 64; ++i) {
          if (!registry.Add(Handle(t * 1000 + i), Value(t * 1000 + i))) ++wrong[t];
        }
        for (uintptr_t i = 0; i < 64; ++i) {
          if (registry.Remove(Handle(t * 1000 + i)) != Value(t * 1000 + i)) ++wrong[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << t;
  EXPECT_EQ(registry.size(), 0u);
}

}  // namespace
}  // namespace rockpool::legacy
