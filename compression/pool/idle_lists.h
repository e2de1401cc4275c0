// The pool's back layer: its records (one Entry per live context, one
// KeyState per key), the per-key lists of idle contexts, and their ages.
// Only a lease the front (compression/pool/thread_front.h) cannot serve
// comes here.
//
// Not thread-safe: ContextPool holds its mutex around every IdleLists and
// SweepEpochs call. The records are intrusive (links inside them), so
// nothing here allocates except a KeyState for a new key (nothrow; nullptr
// when out of memory) and the tests' audit its message. Keys are few (a handful of zlib shapes,
// tens of zstd size classes) and found on the pool's slow path only, so they sit in a list searched
// front to back, newest key first.
#ifndef ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_
#define ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "compression/debug_check.h"

namespace rockpool::pool_internal {

template <typename Context, typename Key>
struct KeyState;

template <typename Context, typename Key>
struct Entry {
  std::unique_ptr<Context> context;
  KeyState<Context, Key>* key_state = nullptr;
  // Links: in its key's idle list (both), or in an EntryChain (older only).
  Entry* older = nullptr;
  Entry* newer = nullptr;
  uint64_t epoch = 0;  // sweep epoch in which it last became idle
  size_t bytes = 0;    // library bytes held while idle
  // Counted in key_state->retained: the pool keeps this context for reuse.
  // Written only by whoever holds the entry (its lessee, or the pool while
  // it is idle); published with the slot and list hand-overs.
  bool retained = false;
};

// Keys live as long as the pool (entries point at them).
template <typename Context, typename Key>
struct KeyState {
  explicit KeyState(const Key& k) : key(k) {}
  const Key key;
  KeyState* next_key = nullptr;  // the pool's list of keys
  // Idle list, guarded by the pool's mutex; oldest to newest by epoch.
  Entry<Context, Key>* oldest = nullptr;
  Entry<Context, Key>* newest = nullptr;
  size_t listed = 0;  // entries in the idle list
  // Contexts of this key the pool keeps: idle ones (list and stripe slots)
  // and leased ones that will come back (ContextPool's contract says when
  // this may exceed the cap).
  std::atomic<size_t> retained{0};
};

// A singly linked batch of entries taken out of the pool, to be destroyed
// outside the lock. Uses Entry::older as the link.
template <typename Context, typename Key>
struct EntryChain {
  Entry<Context, Key>* head = nullptr;
  size_t size = 0;
  void Add(Entry<Context, Key>* entry) {
    entry->older = head;
    entry->newer = nullptr;
    head = entry;
    ++size;
  }
};

// Keys need only operator<; one with operator== (ZstdKey's 8-byte compare)
// is compared once, not twice, on the fast path.
template <typename Key>
bool SameKey(const Key& a, const Key& b) {
  if constexpr (requires { a == b; }) {
    return a == b;
  } else {
    return !(a < b) && !(b < a);
  }
}

template <typename Context, typename Key>
class IdleLists {
 public:
  using EntryT = Entry<Context, Key>;
  using KeyStateT = KeyState<Context, Key>;
  using Chain = EntryChain<Context, Key>;

  IdleLists() = default;
  IdleLists(const IdleLists&) = delete;
  IdleLists& operator=(const IdleLists&) = delete;
  ~IdleLists() {
    for (KeyStateT* k = keys_; k != nullptr;) {
      KeyStateT* next = k->next_key;
      delete k;
      k = next;
    }
  }

  // The state of `key`, created on first use; nullptr when out of memory.
  KeyStateT* FindOrAdd(const Key& key) {
    for (KeyStateT* k = keys_; k != nullptr; k = k->next_key) {
      if (SameKey(k->key, key)) return k;
    }
    KeyStateT* k = new (std::nothrow) KeyStateT(key);
    if (k == nullptr) return nullptr;
    k->next_key = keys_;
    keys_ = k;
    return k;
  }

  // The newest idle entry of `key_state`, unlinked; nullptr if none.
  EntryT* PopNewest(KeyStateT* key_state) {
    EntryT* entry = key_state->newest;
    if (entry != nullptr) Unlink(entry);
    return entry;
  }

  // Links an idle entry in by epoch. Scans from the newest end: an entry
  // pushed here is usually the newest (displaced from a stripe slot).
  // Among equal epochs it goes last, so a thread's own order stays LIFO.
  void Push(EntryT* entry) {
    KeyStateT* k = entry->key_state;
    // Only retained contexts are idle, and every listed one is counted in
    // `retained`, which drops only for entries outside the lists.
    ROCKPOOL_DCHECK(entry->retained);
    EntryT* after = k->newest;
    while (after != nullptr && after->epoch > entry->epoch) after = after->older;
    entry->older = after;
    entry->newer = after != nullptr ? after->newer : k->oldest;
    if (entry->newer != nullptr) {
      entry->newer->older = entry;
    } else {
      k->newest = entry;
    }
    if (after != nullptr) {
      after->newer = entry;
    } else {
      k->oldest = entry;
    }
    ++k->listed;
    ROCKPOOL_DCHECK(k->listed <= k->retained.load(std::memory_order_relaxed));
  }

  // Listed idle entries, over all keys.
  size_t ListedCount() const {
    size_t n = 0;
    for (const KeyStateT* k = keys_; k != nullptr; k = k->next_key) n += k->listed;
    return n;
  }

  // Moves into `out` every idle entry stamped below `expired_below`.
  void TakeExpired(uint64_t expired_below, Chain* out) {
    for (KeyStateT* k = keys_; k != nullptr; k = k->next_key) {
      while (k->oldest != nullptr && k->oldest->epoch < expired_below) {
        EntryT* entry = k->oldest;
        Unlink(entry);
        out->Add(entry);
      }
    }
  }

  // Moves into `out` every idle entry.
  void TakeAll(Chain* out) {
    for (KeyStateT* k = keys_; k != nullptr; k = k->next_key) {
      while (EntryT* entry = PopNewest(k)) out->Add(entry);
    }
  }

  // Moves into `out` the oldest idle entries of every key that retains
  // more than `cap` contexts, until it retains `cap` or has none idle.
  // `out` entries are still counted in `retained`: the caller forgets them.
  void TakeOverCap(size_t cap, Chain* out) {
    for (KeyStateT* k = keys_; k != nullptr; k = k->next_key) {
      size_t retained = k->retained.load(std::memory_order_relaxed);
      while (retained > cap && k->oldest != nullptr) {
        EntryT* entry = k->oldest;
        Unlink(entry);
        out->Add(entry);
        --retained;
      }
    }
  }

  // ContextPoolTesting::CheckQuiescent's audit, given the quiescent stripe
  // `slots` and the pool's statistics: returns "; <what>" for each thing
  // that does not hold (idle contexts retained, list counts, idle <=
  // retained per key, retained <= cap when none is leased, idle count and
  // bytes as the statistics say), or "".
  std::string AuditQuiescent(const EntryT* const* slots, size_t slot_count, size_t cap,
                             uint64_t in_use, uint64_t idle, uint64_t idle_bytes) const {
    std::string problems;
    uint64_t idle_found = 0;
    uint64_t bytes_found = 0;
    for (const KeyStateT* k = keys_; k != nullptr; k = k->next_key) {
      size_t count = 0;
      auto audit = [&](const EntryT* e, const char* where) {
        ++count;
        bytes_found += e->bytes;
        if (!e->retained) absl::StrAppend(&problems, "; a context in ", where, " is not retained");
      };
      size_t listed = 0;
      for (const EntryT* e = k->oldest; e != nullptr; e = e->newer, ++listed) audit(e, "a list");
      for (size_t i = 0; i < slot_count; ++i) {
        if (slots[i] != nullptr && slots[i]->key_state == k) audit(slots[i], "a slot");
      }
      if (listed != k->listed) {
        absl::StrAppend(&problems, "; a list holds ", listed, ", its count says ", k->listed);
      }
      const size_t retained = k->retained.load(std::memory_order_relaxed);
      if (count > retained)
        absl::StrAppend(&problems, "; ", count, " idle > ", retained, " retained");
      if (in_use == 0 && retained > cap) {
        absl::StrAppend(&problems, "; ", retained, " retained > cap ", cap, " with none leased");
      }
      idle_found += count;
    }
    if (idle_found != idle) {
      absl::StrAppend(&problems, "; ", idle_found, " idle contexts, the statistics say ", idle);
    }
    if (bytes_found != idle_bytes) {
      absl::StrAppend(&problems, "; idle contexts hold ", bytes_found,
                      " bytes, the statistics say ", idle_bytes);
    }
    return problems;
  }

 private:
  static void Unlink(EntryT* entry) {
    KeyStateT* k = entry->key_state;
    ROCKPOOL_DCHECK(k->listed > 0);
    (entry->older != nullptr ? entry->older->newer : k->oldest) = entry->newer;
    (entry->newer != nullptr ? entry->newer->older : k->newest) = entry->older;
    entry->older = entry->newer = nullptr;
    --k->listed;
  }

  KeyStateT* keys_ = nullptr;
};

// Ages idle contexts without reading a clock on the lease/return fast path.
//
// A returned context is stamped with the current sweep epoch (an atomic
// load). Each sweep reads the clock once and starts a new epoch. A context
// stamped e became idle before epoch e+1 started, so it has been idle at
// least now - start(e+1): it expires when start(e+1) <= now - idle_timeout.
// Expiry is therefore never early, and late by at most the gap between two
// sweeps. The start times of the last kEpochs epochs are kept; when all of
// them are younger than the timeout, a sweep extends the current epoch
// instead of starting one (so a caller sweeping in a loop cannot push old
// epochs out before they expire).
class SweepEpochs {
 public:
  explicit SweepEpochs(absl::Time now) { starts_[0] = now; }

  uint64_t current() const { return current_; }

  // A new time source: what is idle now counts as idle since `now`.
  void Restart(absl::Time now) {
    oldest_ = current_;
    Start(current_) = now;
  }

  // Starts a new epoch at `now` (when there is room) and returns the bound
  // below which stamps have expired: a context stamped s < bound has been
  // idle at least `timeout`. 0: none has. Monotonic.
  uint64_t Sweep(absl::Time now, absl::Duration timeout) {
    if (timeout == absl::InfiniteDuration()) return expired_below_;
    const absl::Time cutoff = now - timeout;
    AdvanceBound(cutoff);
    if (current_ - oldest_ + 1 < kEpochs) {
      ++current_;
      Start(current_) = now;
      AdvanceBound(cutoff);  // a zero timeout expires what was returned before now
    }
    return expired_below_;
  }

 private:
  static constexpr size_t kEpochs = 64;
  absl::Time& Start(uint64_t epoch) { return starts_[epoch % kEpochs]; }

  // The newest epoch that started at or before the cutoff: every stamp
  // below it belongs to an epoch that ended by then.
  void AdvanceBound(absl::Time cutoff) {
    while (oldest_ <= current_ && Start(oldest_) <= cutoff) {
      if (oldest_ > expired_below_) expired_below_ = oldest_;
      if (oldest_ == current_) break;
      ++oldest_;
    }
  }

  uint64_t current_ = 0;
  uint64_t oldest_ = 0;         // oldest epoch whose start is kept
  uint64_t expired_below_ = 0;  // monotonic
  absl::Time starts_[kEpochs];
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_
