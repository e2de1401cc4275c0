// The pool's lock-free front on its own: thread shards handed out and back,
// the stripe slots' exchanges, and per-thread counters summed.
#include "compression/pool/thread_front.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace rockpool::pool_internal {
namespace {

TEST(ThreadShardTest, AThreadKeepsItsShard) {
  const size_t shard = ThreadShard();
  EXPECT_EQ(ThreadShard(), shard);
  EXPECT_LT(shard, kThreadShards);
  EXPECT_GT(ThreadShardsInUse(), shard);
}

TEST(ThreadShardTest, LiveThreadsHaveDistinctShardsAndExitedOnesAreReused) {
  constexpr int kThreads = 8;
  std::vector<size_t> shards(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> started{0};
  std::atomic<bool> release{false};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      shards[i] = ThreadShard();
      started.fetch_add(1);
      while (!release.load()) std::this_thread::yield();
    });
  }
  while (started.load() < kThreads) std::this_thread::yield();
  release.store(true);
  for (std::thread& t : threads) t.join();
  const std::set<size_t> distinct(shards.begin(), shards.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  // Those indices went back: a new thread gets one of them (or a lower one).
  const size_t in_use = ThreadShardsInUse();
  size_t next = 0;
  std::thread([&] { next = ThreadShard(); }).join();
  EXPECT_LT(next, in_use);
  EXPECT_EQ(ThreadShardsInUse(), in_use);
}

struct FakeEntry {
  int id;
};

TEST(StripeFrontTest, TakeEmptiesTheSlotPutDisplaces) {
  StripeFront<FakeEntry> front;
  FakeEntry a{1}, b{2};
  EXPECT_EQ(front.Take(3), nullptr);
  EXPECT_EQ(front.Put(3, &a), nullptr);
  EXPECT_EQ(front.PeekQuiescent(3), &a);
  EXPECT_EQ(front.Put(3, &b), &a);
  EXPECT_EQ(front.Take(3), &b);
  EXPECT_EQ(front.Take(3), nullptr);
}

TEST(StripeFrontTest, PutBackFailsWhenTheSlotWasRefilled) {
  StripeFront<FakeEntry> front;
  FakeEntry a{1}, b{2};
  front.Put(0, &a);
  FakeEntry* taken = front.Take(0);
  front.Put(0, &b);  // someone refilled it meanwhile
  EXPECT_FALSE(front.PutBack(0, taken));
  EXPECT_EQ(front.Take(0), &b);
  EXPECT_TRUE(front.PutBack(0, taken));
  EXPECT_EQ(front.Take(0), &a);
}

TEST(StripeFrontTest, StripesBeyondTheCountShareSlots) {
  StripeFront<FakeEntry> front;
  FakeEntry a{1};
  front.Put(1, &a);
  EXPECT_EQ(front.Take(1 + StripeFront<FakeEntry>::kStripes), &a);
}

TEST(ShardCountersTest, AddReturnsTheShardsValueAndTotalsSumThreads) {
  ShardCounters counters;
  const size_t mine = ThreadShard();
  EXPECT_EQ(counters.Add(mine, Counter::kLeases, 3), 3u);
  EXPECT_EQ(counters.Add(mine, Counter::kLeases, 2), 5u);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      const size_t shard = ThreadShard();
      for (int n = 0; n < 1000; ++n) counters.Add(shard, Counter::kLeases, 1);
      counters.Add(kSharedShard, Counter::kReleases, 7);  // shared: atomic adds
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counters.Total(Counter::kLeases), 4005u);
  EXPECT_EQ(counters.Total(Counter::kReleases), 28u);
  const ShardCounters::Sums sums = counters.Sum();
  EXPECT_EQ(sums[static_cast<size_t>(Counter::kLeases)], 4005u);
  EXPECT_EQ(sums[static_cast<size_t>(Counter::kCreated)], 0u);
}

TEST(ShardCountersTest, ShardsTakeMemoryOnlyOnceAThreadCounts) {
  ShardCounters counters;
  const int before = counters.ResidentPagesForTesting();
  ASSERT_GE(before, 0) << "the shards were not mapped";
  EXPECT_EQ(before, 0);
  const size_t mine = ThreadShard();
  counters.Add(mine, Counter::kLeases, 1);
  // The first 64 threads' shards share the first page.
  if (mine < 64) {
    EXPECT_EQ(counters.ResidentPagesForTesting(), 1);
  }
  EXPECT_EQ(counters.Total(Counter::kLeases), 1u);
}

}  // namespace
}  // namespace rockpool::pool_internal
