// The back layer of the pool: per-key lists of idle contexts, newest last,
// and the keys themselves. Not thread-safe: the pool holds its mutex around
// every call. Nothing here allocates except a KeyState for a new key
// (nothrow; nullptr when out of memory).
//
// Keys are few (a handful of zlib shapes, tens of zstd size classes), and
// found on the pool's slow path only, so they sit in a list searched
// front to back, newest key first.
#ifndef ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_
#define ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_

#include <cstddef>
#include <cstdint>
#include <new>

#include "compression/pool/idle_entry.h"

namespace rockpool::pool_internal {

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

  // Keys need only operator<; one with operator== (ZstdKey's defaulted
  // comparisons) is compared once, not twice, on the fast path.
  static bool SameKey(const Key& a, const Key& b) {
    if constexpr (requires { a == b; }) {
      return a == b;
    } else {
      return !(a < b) && !(b < a);
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

 private:
  static void Unlink(EntryT* entry) {
    KeyStateT* k = entry->key_state;
    (entry->older != nullptr ? entry->older->newer : k->oldest) = entry->newer;
    (entry->newer != nullptr ? entry->newer->older : k->newest) = entry->older;
    entry->older = entry->newer = nullptr;
  }

  KeyStateT* keys_ = nullptr;
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_IDLE_LISTS_H_
