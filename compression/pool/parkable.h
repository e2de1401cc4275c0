// Parkable: a context that can leave the pool as a bare pointer and come
// back without a lookup.
//
// Why: the legacy face hands RocksDB a ZSTD_CCtx* (or moves a zlib state into
// RocksDB's z_stream) and only sees that pointer again in the free call. A
// table from pointer to lease costs a lock, a hash lookup and, as it grows,
// allocations on every lease. Instead the context remembers its own pool
// entry: ContextPool::Park() turns a lease into its context, Unpark() turns
// the context back into the lease, each a few plain stores.
//
// A context type opts in by deriving from Parkable; the pool fills in the
// link when it creates the context. A parked context belongs to whoever
// holds the pointer; Park/Unpark and the note below are not synchronized
// (the holder's own hand-over orders them, as for any object it passes on).
#ifndef ROCKPOOL_COMPRESSION_POOL_PARKABLE_H_
#define ROCKPOOL_COMPRESSION_POOL_PARKABLE_H_

namespace rockpool {

template <typename Policy>
class ContextPool;

class Parkable {
 public:
  bool parked() const { return parked_; }
  // The parker's note: destroy this context instead of pooling it when it
  // is unparked and returned (its user changed it in a way a reset cannot
  // undo). Cleared by Park().
  bool discard_when_unparked() const { return discard_; }
  void set_discard_when_unparked() { discard_ = true; }

 private:
  template <typename Policy>
  friend class ContextPool;
  void* entry_ = nullptr;       // the pool's Entry
  const void* pool_ = nullptr;  // the ContextPool that created it
  bool parked_ = false;
  bool discard_ = false;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_POOL_PARKABLE_H_
