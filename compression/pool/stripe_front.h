// The front layer of the pool: one atomic slot per stripe of threads, each
// holding the idle context its stripe returned last (folly's core-local
// front). A lease that finds its key in its stripe's slot and the return
// that puts it back are one atomic exchange each; no lock.
//
// Slots are shared: threads beyond kStripes share stripes, and the pool's
// slow paths (stealing before a create, expiry, Trim) look at every slot.
// So an entry is always taken out of a slot (exchanged for nullptr) before
// anyone reads it: while it sits in a slot, its owner may lease, rewrite or
// free it at any moment.
#ifndef ROCKPOOL_COMPRESSION_POOL_STRIPE_FRONT_H_
#define ROCKPOOL_COMPRESSION_POOL_STRIPE_FRONT_H_

#include <atomic>
#include <cstddef>
#include <memory>

namespace rockpool::pool_internal {

template <typename EntryT>
class StripeFront {
 public:
  static constexpr size_t kStripes = 16;

  StripeFront() = default;
  StripeFront(const StripeFront&) = delete;
  StripeFront& operator=(const StripeFront&) = delete;

  // Takes the entry out of `stripe`'s slot if one is there; nullptr if not.
  EntryT* Take(size_t stripe) {
    std::atomic<EntryT*>& slot = slots_[stripe % kStripes].entry;
    if (slot.load(std::memory_order_relaxed) == nullptr) return nullptr;
    return slot.exchange(nullptr, std::memory_order_acq_rel);
  }

  // Puts `entry` in `stripe`'s slot; returns what it displaced (or nullptr).
  // Afterwards `entry` belongs to the pool: do not touch it.
  EntryT* Put(size_t stripe, EntryT* entry) {
    return slots_[stripe % kStripes].entry.exchange(entry, std::memory_order_acq_rel);
  }

  // Puts back an entry Take() took, if the slot is still empty; returns
  // false (entry still the caller's) when it was refilled meanwhile.
  bool PutBack(size_t stripe, EntryT* entry) {
    EntryT* empty = nullptr;
    return slots_[stripe % kStripes].entry.compare_exchange_strong(empty, entry,
                                                                   std::memory_order_acq_rel);
  }

 private:
  struct alignas(64) Slot {
    std::atomic<EntryT*> entry{nullptr};
  };
  // On the heap, for the alignment reason in shard_counters.h.
  const std::unique_ptr<Slot[]> slots_{new Slot[kStripes]};
};

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_STRIPE_FRONT_H_
