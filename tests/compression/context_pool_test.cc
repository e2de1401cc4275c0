// The generic pool, with a test policy whose contexts record their history:
// reuse without reset, leaks and LIFO order are all observable.
#include "compression/context_pool.h"
#include "compression/context_pool_testing.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "tests/compression/pool/tiny_policy.h"

namespace rockpool {
namespace {

struct ProbeContext {
  int id = 0;
  int key = 0;
  bool dirty = false;  // set by a user, cleared only by Reset()
  int resets = 0;
  static int live;
  ProbeContext() { ++live; }
  ~ProbeContext() { --live; }
};
int ProbeContext::live = 0;

struct ProbePolicy {
  using Context = ProbeContext;
  using Key = int;
  int next_id = 0;
  bool fail_create = false;
  bool fail_reset = false;
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats) {
    if (fail_create) return absl::ResourceExhaustedError("probe: out of memory");
    auto c = std::make_unique<Context>();
    c->id = ++next_id;
    c->key = key;
    stats->OnAllocate(100);
    return c;
  }
  absl::Status Reset(Context& c) {
    if (fail_reset) return absl::InternalError("probe: reset failed");
    c.dirty = false;
    ++c.resets;
    return absl::OkStatus();
  }
  size_t BytesHeld(const Context&) { return 100; }
};

using ProbePool = ContextPool<ProbePolicy>;

absl::Time fake_now = absl::UnixEpoch();
absl::Time FakeNow() { return fake_now; }

PoolOptions Options(size_t cap, absl::Duration timeout = absl::InfiniteDuration()) {
  PoolOptions o;
  o.max_retained_per_key = cap;
  o.idle_timeout = timeout;
  o.now = &FakeNow;
  return o;
}

TEST(ContextPoolTest, ReusesTheMostRecentlyReturnedContextFirst) {
  ProbePool pool(Options(4));
  auto a = pool.Acquire(1);
  auto b = pool.Acquire(1);
  auto c = pool.Acquire(1);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  const int ida = (*a)->id, idb = (*b)->id, idc = (*c)->id;
  EXPECT_EQ(std::set<int>({ida, idb, idc}).size(), 3u);
  a->reset();
  c->reset();
  b->reset();  // idle stack (top last): a, c, b
  auto x = pool.Acquire(1);
  auto y = pool.Acquire(1);
  auto z = pool.Acquire(1);
  EXPECT_EQ((*x)->id, idb);
  EXPECT_EQ((*y)->id, idc);
  EXPECT_EQ((*z)->id, ida);
  EXPECT_EQ(pool.stats().created, 3u);
  EXPECT_EQ(pool.stats().reused, 3u);
}

TEST(ContextPoolTest, EveryReturnedContextIsResetBeforeReuse) {
  ProbePool pool(Options(2));
  for (int round = 0; round < 50; ++round) {
    auto lease = pool.Acquire(7);
    ASSERT_TRUE(lease.ok());
    EXPECT_FALSE((*lease)->dirty) << "context handed out without reset, round " << round;
    (*lease)->dirty = true;  // the user leaves state behind
  }
  EXPECT_EQ(pool.stats().created, 1u);
  EXPECT_EQ(pool.stats().reused, 49u);
  auto lease = pool.Acquire(7);
  EXPECT_EQ((*lease)->resets, 50);
}

TEST(ContextPoolTest, KeysHaveSeparateIdleLists) {
  ProbePool pool(Options(2));
  { auto a = pool.Acquire(1); }
  auto b = pool.Acquire(2);
  EXPECT_EQ((*b)->key, 2);
  EXPECT_EQ(pool.stats().created, 2u);
  auto a = pool.Acquire(1);
  EXPECT_EQ((*a)->key, 1);
  EXPECT_EQ(pool.stats().reused, 1u);
}

TEST(ContextPoolTest, IdleListIsCappedPerKeyAndExtrasAreFreed) {
  ProbeContext::live = 0;
  {
    ProbePool pool(Options(2));
    std::vector<ProbePool::Lease> leases;
    for (int i = 0; i < 5; ++i) leases.push_back(*pool.Acquire(3));
    leases.clear();
    PoolStats s = pool.stats();
    EXPECT_EQ(s.idle, 2u);
    EXPECT_EQ(s.destroyed, 3u);
    EXPECT_EQ(s.idle_bytes, 200u);
    EXPECT_EQ(s.peak_in_use, 5u);
    EXPECT_EQ(s.in_use, 0u);
    EXPECT_EQ(ProbeContext::live, 2);
  }
  EXPECT_EQ(ProbeContext::live, 0) << "pool destruction must free idle contexts";
}

TEST(ContextPoolTest, ZeroCapDisablesPooling) {
  ProbePool pool(Options(0));
  for (int i = 0; i < 3; ++i) {
    auto lease = pool.Acquire(1);
    ASSERT_TRUE(lease.ok());
  }
  PoolStats s = pool.stats();
  EXPECT_EQ(s.created, 3u);
  EXPECT_EQ(s.reused, 0u);
  EXPECT_EQ(s.destroyed, 3u);
  EXPECT_EQ(s.idle, 0u);
}

TEST(ContextPoolTest, TrimFreesEveryIdleContext) {
  ProbeContext::live = 0;
  ProbePool pool(Options(8));
  {
    auto a = pool.Acquire(1);
    auto b = pool.Acquire(2);
    auto c = pool.Acquire(2);
  }
  auto held = pool.Acquire(5);
  EXPECT_EQ(pool.stats().idle, 3u);
  EXPECT_EQ(pool.Trim(), 3u);
  EXPECT_EQ(pool.stats().idle, 0u);
  EXPECT_EQ(pool.stats().idle_bytes, 0u);
  EXPECT_EQ(ProbeContext::live, 1);  // the leased one survives
}

TEST(ContextPoolTest, ContextsIdleLongerThanTheTimeoutAreFreed) {
  fake_now = absl::UnixEpoch();
  ProbePool pool(Options(8, absl::Seconds(60)));
  { auto a = pool.Acquire(1); }  // idle since t=0
  // A return reads no clock: it is stamped with the sweep epoch, and a sweep
  // ends the epoch. This one dates a's return to "before t=0".
  EXPECT_EQ(pool.ReleaseExpired(), 0u);
  fake_now += absl::Seconds(30);
  { auto b = pool.Acquire(2); }  // idle since t=30
  EXPECT_EQ(pool.ReleaseExpired(), 0u);
  fake_now += absl::Seconds(31);  // t=61: key 1 expired, key 2 not
  EXPECT_EQ(pool.ReleaseExpired(), 1u);
  EXPECT_EQ(pool.stats().idle, 1u);
  fake_now += absl::Seconds(60);
  // Lazy expiry: an unrelated Acquire also collects the expired context.
  auto c = pool.Acquire(9);
  EXPECT_EQ(pool.stats().idle, 0u);
  EXPECT_EQ(pool.stats().destroyed, 2u);
}

TEST(ContextPoolTest, ExpiryIsNeverEarly) {
  fake_now = absl::UnixEpoch();
  ProbePool pool(Options(8, absl::Seconds(60)));
  fake_now += absl::Seconds(50);
  { auto a = pool.Acquire(1); }   // returned at t=50, in an epoch begun at t=0
  fake_now += absl::Seconds(20);  // t=70: the epoch began 70 s ago, a is 20 s idle
  EXPECT_EQ(pool.ReleaseExpired(), 0u);
  fake_now += absl::Seconds(59);  // t=129: still under 60 s since that sweep
  EXPECT_EQ(pool.ReleaseExpired(), 0u);
  fake_now += absl::Seconds(1);  // t=130: idle at least 60 s for certain
  EXPECT_EQ(pool.ReleaseExpired(), 1u);
}

TEST(ContextPoolTest, SweepingInALoopStillExpiresOldContexts) {
  fake_now = absl::UnixEpoch();
  ProbePool pool(Options(8, absl::Seconds(60)));
  { auto a = pool.Acquire(1); }
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(pool.ReleaseExpired(), 0u);  // more than the epochs kept
  fake_now += absl::Seconds(61);
  EXPECT_EQ(pool.ReleaseExpired(), 1u);
}

TEST(ContextPoolTest, TheFastPathSweepsEveryMaintenanceLeases) {
  fake_now = absl::UnixEpoch();
  ProbePool pool(Options(8, absl::Seconds(60)));
  { auto a = pool.Acquire(1); }
  { auto b = pool.Acquire(2); }  // b in the slot, a in its list
  EXPECT_EQ(pool.ReleaseExpired(), 0u);
  fake_now += absl::Seconds(61);
  // Slot hits only (key 2); one of every kMaintenanceLeases looks at the clock.
  for (uint64_t i = 0; i < ProbePool::kMaintenanceLeases; ++i) {
    auto b = pool.Acquire(2);
  }
  EXPECT_EQ(pool.stats().idle, 1u) << "a should have expired on the fast path's sweep";
  EXPECT_EQ(pool.stats().destroyed, 1u);
}

TEST(ContextPoolTest, ALeasedContextKeepsItsPlaceUnderTheCap) {
  ProbeContext::live = 0;
  ProbePool pool(Options(1));
  { auto a = pool.Acquire(1); }  // retained: the key's one place
  auto a = pool.Acquire(1);      // from the slot; keeps the place
  auto b = pool.Acquire(1);      // new
  const int ida = (*a)->id;
  b->reset();  // the key is full: destroyed
  EXPECT_EQ(pool.stats().destroyed, 1u);
  a->reset();  // comes back without a count
  auto again = pool.Acquire(1);
  EXPECT_EQ((*again)->id, ida);
  EXPECT_EQ(pool.stats().created, 2u);
}

TEST(ContextPoolTest, ShrinkingTheCapShedsRetainedContextsAsTheyComeBack) {
  ProbePool pool(Options(3));
  std::vector<ProbePool::Lease> leases;
  for (int i = 0; i < 3; ++i) leases.push_back(*pool.Acquire(1));
  leases.clear();  // three retained
  for (int i = 0; i < 3; ++i) leases.push_back(*pool.Acquire(1));
  pool.SetOptions(Options(1));
  leases.clear();
  EXPECT_EQ(pool.stats().idle, 1u);
  EXPECT_EQ(pool.stats().destroyed, 2u);
}

TEST(ContextPoolTest, ShrinkingTheCapFreesTheColdestIdleContexts) {
  ProbePool pool(Options(4));
  std::vector<ProbePool::Lease> leases;
  for (int i = 0; i < 4; ++i) leases.push_back(*pool.Acquire(1));
  const int newest = leases.back()->id;
  leases.clear();  // returned in order: the last one is the warmest
  pool.SetOptions(Options(1));
  EXPECT_EQ(pool.stats().idle, 1u);
  auto lease = pool.Acquire(1);
  EXPECT_EQ((*lease)->id, newest);
}

TEST(ContextPoolTest, CreationFailureIsAStatusAndLeavesCountsConsistent) {
  ProbePool pool(Options(2));
  pool.policy().fail_create = true;
  auto lease = pool.Acquire(1);
  EXPECT_EQ(lease.status().code(), absl::StatusCode::kResourceExhausted);
  PoolStats s = pool.stats();
  EXPECT_EQ(s.created, 0u);
  EXPECT_EQ(s.in_use, 0u);
}

TEST(ContextPoolTest, AContextThatFailsToResetIsDestroyedNotPooled) {
  ProbeContext::live = 0;
  ProbePool pool(Options(2));
  pool.policy().fail_reset = true;
  { auto lease = pool.Acquire(1); }
  EXPECT_EQ(pool.stats().idle, 0u);
  EXPECT_EQ(pool.stats().reset_failures, 1u);
  EXPECT_EQ(pool.stats().destroyed, 1u);
  EXPECT_EQ(ProbeContext::live, 0);
}

TEST(ContextPoolTest, StatisticsCountLibraryAllocations) {
  ProbePool pool(Options(2));
  { auto a = pool.Acquire(1); }
  { auto a = pool.Acquire(1); }
  EXPECT_EQ(pool.stats().library.bytes_allocated, 100u);  // one creation
  EXPECT_EQ(pool.stats().library.allocations, 1u);
}

TEST(ContextPoolTest, TheBooksBalanceWhenQuiescent) {
  ProbePool pool(Options(2, absl::Seconds(10)));
  std::vector<ProbePool::Lease> leases;
  for (int i = 0; i < 5; ++i) leases.push_back(*pool.Acquire(i % 2));
  leases.resize(2);  // three back: one destroyed over the cap of key 0
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);
  pool.SetOptions(Options(1, absl::Seconds(10)));
  leases.clear();
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);
  pool.ReleaseExpired();  // ends the epoch the returns were stamped in
  fake_now += absl::Seconds(30);
  pool.ReleaseExpired();
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);
  EXPECT_EQ(pool.stats().idle, 0u);
}

struct ParkableProbe : Parkable {
  int id = 0;
};

struct ParkablePolicy {
  using Context = ParkableProbe;
  using Key = int;
  int next_id = 0;
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key&, AllocationStats*) {
    auto c = std::make_unique<Context>();
    c->id = ++next_id;
    return c;
  }
  absl::Status Reset(Context&) { return absl::OkStatus(); }
  size_t BytesHeld(const Context&) { return 0; }
};

TEST(ContextPoolTest, UnparkGivesBackTheLeaseParkTookAndOnlyThat) {
  ContextPool<ParkablePolicy> pool(Options(2));
  ContextPool<ParkablePolicy> other(Options(2));
  ParkableProbe* parked = pool.Park(*pool.Acquire(1));
  EXPECT_TRUE(parked->parked());
  EXPECT_EQ(pool.stats().in_use, 1u);        // still leased
  EXPECT_EQ(other.Unpark(parked), nullptr);  // not that pool's
  auto lease = pool.Unpark(parked);
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease.get(), parked);
  EXPECT_FALSE(parked->parked());
  EXPECT_EQ(pool.Unpark(parked), nullptr);  // no longer parked
  lease.reset();
  EXPECT_EQ(pool.stats().in_use, 0u);
  EXPECT_EQ((*pool.Acquire(1))->id, 1);  // reused
}

TEST(ContextPoolDeathTest, TestsRunWithInvariantChecks) {
  EXPECT_EQ(ROCKPOOL_DEBUG_CHECKS_ON, 1) << "bazel test builds define ROCKPOOL_DEBUG_CHECKS";
  EXPECT_DEATH(ROCKPOOL_DCHECK(1 + 1 == 3), "invariant failed .*1 \\+ 1 == 3");
}

// The retained-bytes figures follow each context's bytes as recorded at
// its return.
TEST(ContextPoolTest, PeakRetainedBytesBoundsIdleBytesAndSurvivesFrees) {
  TinyPool pool(Options(2));
  {
    auto a = pool.Acquire(1);
    auto b = pool.Acquire(1);
    auto c = pool.Acquire(1);
    (*a)->bytes = 100;
    (*b)->bytes = 200;
    (*c)->bytes = 300;
    EXPECT_EQ(pool.stats().retained_bytes, 0u) << "nothing returned yet";
  }  // c, b, a come back: the key keeps two (c and b), a is over the cap
  PoolStats s = pool.stats();
  EXPECT_EQ(s.idle_bytes, 500u);
  EXPECT_EQ(s.retained_bytes, 500u);
  EXPECT_EQ(s.peak_retained_bytes, 500u);
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);
  {
    auto leased = pool.Acquire(1);  // leased, still retained
    s = pool.stats();
    EXPECT_EQ(s.retained_bytes, 500u);
    EXPECT_LT(s.idle_bytes, s.retained_bytes);
    (*leased)->bytes += 1000;  // it grows while leased
  }
  s = pool.stats();
  EXPECT_EQ(s.idle_bytes, 1500u);
  EXPECT_EQ(s.retained_bytes, 1500u);
  EXPECT_EQ(s.peak_retained_bytes, 1500u);
  EXPECT_EQ(pool.Trim(), 2u);
  s = pool.stats();
  EXPECT_EQ(s.retained_bytes, 0u);
  EXPECT_EQ(s.peak_retained_bytes, 1500u) << "a peak outlives what it measured";
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);

  // A cap shrunk while contexts are leased: they leave the pool on return.
  {
    auto a = pool.Acquire(1);
    auto b = pool.Acquire(1);
    (*a)->bytes = 10;
    (*b)->bytes = 20;
  }
  EXPECT_EQ(pool.stats().retained_bytes, 30u);
  {
    auto a = pool.Acquire(1);
    pool.SetOptions(Options(0));
    EXPECT_EQ(pool.stats().retained_bytes, (*a)->bytes) << "the idle one is freed now";
  }
  s = pool.stats();
  EXPECT_EQ(s.retained_bytes, 0u);
  EXPECT_EQ(s.idle_bytes, 0u);
  EXPECT_EQ(s.peak_retained_bytes, 1500u);
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pool).ok())
      << ContextPoolTesting::CheckQuiescent(pool);
}

}  // namespace
}  // namespace rockpool
