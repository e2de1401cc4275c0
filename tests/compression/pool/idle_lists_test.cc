// The pool's back layer on its own: idle lists by key and age, the shrink
// and expiry takes, the quiescent audit, and SweepEpochs' expiry bound.
#include "compression/pool/idle_lists.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace rockpool::pool_internal {
namespace {

struct Probe {
  int id = 0;
};
using Lists = IdleLists<Probe, int>;
using EntryT = Lists::EntryT;
using KeyStateT = Lists::KeyStateT;

// Entries that own a Probe and count as retained by their key, as idle
// entries in a pool always do.
class Entries {
 public:
  EntryT* Make(KeyStateT* key, int id, uint64_t epoch, size_t bytes = 0) {
    EntryT& e = entries_.emplace_back();
    e.context = std::make_unique<Probe>(Probe{id});
    e.key_state = key;
    e.epoch = epoch;
    e.bytes = bytes;
    e.retained = true;
    key->retained.fetch_add(1);
    return &e;
  }

 private:
  std::deque<EntryT> entries_;
};

std::vector<int> Ids(const Lists::Chain& chain) {
  std::vector<int> ids;
  for (EntryT* e = chain.head; e != nullptr; e = e->older) ids.push_back(e->context->id);
  return ids;
}

TEST(IdleListsTest, FindOrAddReturnsOneStatePerKey) {
  Lists lists;
  KeyStateT* a = lists.FindOrAdd(1);
  EXPECT_EQ(lists.FindOrAdd(1), a);
  EXPECT_NE(lists.FindOrAdd(2), a);
  EXPECT_EQ(a->key, 1);
}

TEST(IdleListsTest, PopsNewestFirstAmongEqualEpochs) {
  Lists lists;
  Entries entries;
  KeyStateT* k = lists.FindOrAdd(1);
  for (int id = 1; id <= 3; ++id) lists.Push(entries.Make(k, id, /*epoch=*/5));
  EXPECT_EQ(k->listed, 3u);
  EXPECT_EQ(lists.PopNewest(k)->context->id, 3);
  EXPECT_EQ(lists.PopNewest(k)->context->id, 2);
  EXPECT_EQ(lists.PopNewest(k)->context->id, 1);
  EXPECT_EQ(lists.PopNewest(k), nullptr);
  EXPECT_EQ(k->listed, 0u);
}

TEST(IdleListsTest, AnOlderStampIsListedBehindNewerOnes) {
  Lists lists;
  Entries entries;
  KeyStateT* k = lists.FindOrAdd(1);
  lists.Push(entries.Make(k, 1, /*epoch=*/7));
  lists.Push(entries.Make(k, 2, /*epoch=*/3));  // displaced from a slot late
  EXPECT_EQ(k->oldest->context->id, 2);
  EXPECT_EQ(k->newest->context->id, 1);
}

TEST(IdleListsTest, TakeExpiredTakesOnlyStampsBelowTheBound) {
  Lists lists;
  Entries entries;
  KeyStateT* a = lists.FindOrAdd(1);
  KeyStateT* b = lists.FindOrAdd(2);
  lists.Push(entries.Make(a, 1, 1));
  lists.Push(entries.Make(a, 2, 4));
  lists.Push(entries.Make(b, 3, 2));
  Lists::Chain expired;
  lists.TakeExpired(/*expired_below=*/3, &expired);
  std::vector<int> ids = Ids(expired);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int>{1, 3}));
  EXPECT_EQ(a->listed, 1u);
  EXPECT_EQ(b->listed, 0u);
}

TEST(IdleListsTest, TakeOverCapTakesTheOldestUntilTheKeyFits) {
  Lists lists;
  Entries entries;
  KeyStateT* k = lists.FindOrAdd(1);
  for (int id = 1; id <= 4; ++id) lists.Push(entries.Make(k, id, id));
  Lists::Chain doomed;
  lists.TakeOverCap(/*cap=*/1, &doomed);
  EXPECT_EQ(doomed.size, 3u);
  EXPECT_EQ(k->newest->context->id, 4);
  EXPECT_EQ(k->listed, 1u);
  // Still counted as retained: the caller forgets them.
  EXPECT_EQ(k->retained.load(), 4u);
}

TEST(IdleListsTest, TakeAllEmptiesEveryKey) {
  Lists lists;
  Entries entries;
  lists.Push(entries.Make(lists.FindOrAdd(1), 1, 0));
  lists.Push(entries.Make(lists.FindOrAdd(2), 2, 0));
  Lists::Chain all;
  lists.TakeAll(&all);
  EXPECT_EQ(all.size, 2u);
  EXPECT_EQ(lists.FindOrAdd(1)->listed, 0u);
}

TEST(IdleListsTest, TheAuditFindsWhatDoesNotBalance) {
  Lists lists;
  Entries entries;
  KeyStateT* k = lists.FindOrAdd(1);
  lists.Push(entries.Make(k, 1, 0, /*bytes=*/10));
  EntryT* slotted = entries.Make(k, 2, 0, /*bytes=*/5);
  const EntryT* slots[2] = {slotted, nullptr};
  EXPECT_EQ(lists.AuditQuiescent(slots, 2, /*cap=*/2, /*in_use=*/0, /*idle=*/2, 15), "");
  // Statistics that disagree with the records.
  EXPECT_NE(lists.AuditQuiescent(slots, 2, 2, 0, /*idle=*/3, 15), "");
  EXPECT_NE(lists.AuditQuiescent(slots, 2, 2, 0, 2, /*idle_bytes=*/14), "");
  // More retained than the cap with nothing leased.
  EXPECT_NE(lists.AuditQuiescent(slots, 2, /*cap=*/1, 0, 2, 15), "");
  // ... which is fine while leases are out (they shed as they come back).
  EXPECT_EQ(lists.AuditQuiescent(slots, 2, /*cap=*/1, /*in_use=*/1, 2, 15), "");
  // An idle context that is not retained.
  slotted->retained = false;
  EXPECT_NE(lists.AuditQuiescent(slots, 2, 2, 0, 2, 15), "");
}

struct LessOnly {
  int v;
  bool operator<(const LessOnly& o) const { return v < o.v; }
};

TEST(IdleListsTest, KeysWithOnlyOperatorLessCompare) {
  EXPECT_TRUE(SameKey(LessOnly{1}, LessOnly{1}));
  EXPECT_FALSE(SameKey(LessOnly{1}, LessOnly{2}));
  EXPECT_TRUE(SameKey(3, 3));
}

const absl::Time t0 = absl::UnixEpoch();

TEST(SweepEpochsTest, NothingExpiresBeforeTheTimeout) {
  SweepEpochs epochs(t0);
  EXPECT_EQ(epochs.Sweep(t0 + absl::Seconds(59), absl::Seconds(60)), 0u);
  // A stamp of epoch 0 expires once epoch 1 started a timeout ago.
  EXPECT_EQ(epochs.current(), 1u);
  EXPECT_EQ(epochs.Sweep(t0 + absl::Seconds(118), absl::Seconds(60)), 0u);
  EXPECT_EQ(epochs.Sweep(t0 + absl::Seconds(119), absl::Seconds(60)), 1u);
}

TEST(SweepEpochsTest, TheBoundNeverMovesBack) {
  SweepEpochs epochs(t0);
  uint64_t last = 0;
  for (int i = 1; i <= 200; ++i) {
    const uint64_t bound = epochs.Sweep(t0 + absl::Seconds(i), absl::Seconds(10));
    EXPECT_GE(bound, last);
    last = bound;
  }
  EXPECT_GT(last, 0u);
}

TEST(SweepEpochsTest, SweepingInALoopKeepsOldEpochsUntilTheyExpire) {
  SweepEpochs epochs(t0);
  // 1000 sweeps within one second cannot start more epochs than it keeps.
  for (int i = 0; i < 1000; ++i) epochs.Sweep(t0 + absl::Milliseconds(i), absl::Seconds(60));
  EXPECT_LT(epochs.current(), 64u);
  EXPECT_GT(epochs.Sweep(t0 + absl::Seconds(62), absl::Seconds(60)), 0u);
}

TEST(SweepEpochsTest, AnInfiniteTimeoutExpiresNothing) {
  SweepEpochs epochs(t0);
  EXPECT_EQ(epochs.Sweep(t0 + absl::Hours(1000), absl::InfiniteDuration()), 0u);
  EXPECT_EQ(epochs.current(), 0u);
}

}  // namespace
}  // namespace rockpool::pool_internal
