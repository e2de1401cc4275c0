// The pool's bookkeeping records, shared by its layers: one Entry per live
// context, one KeyState per key. Both are intrusive (links inside the
// records), so no pool operation allocates except to create a context.
#ifndef ROCKPOOL_COMPRESSION_POOL_IDLE_ENTRY_H_
#define ROCKPOOL_COMPRESSION_POOL_IDLE_ENTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace rockpool::pool_internal {

template <typename Context, typename Key>
struct KeyState;

template <typename Context, typename Key>
struct Entry {
  std::unique_ptr<Context> context;
  KeyState<Context, Key>* key_state = nullptr;
  // Links: in its key's idle list (both), or in an EntryChain (next only).
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
  // Contexts of this key the pool keeps: idle ones (list and stripe slots)
  // and leased ones that will come back. Never above the cap, except
  // after the cap shrank, until the extras come back and are destroyed.
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

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_IDLE_ENTRY_H_
