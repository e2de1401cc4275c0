// A small per-thread number for the pool's fast path: the index of this
// thread's statistics shard, and (modulo the stripe count) its stripe.
//
// Why not a counter that only grows: threads come and go (RocksDB's
// compaction and flush threads, a server's request threads). An index is
// handed back when its thread exits and given to the next new thread, so a
// process never needs more shards than it has threads at once, and the shard
// a new thread inherits keeps the counts its previous owner left there (the
// counts are sums; who added them does not matter).
//
// Contract:
//  - ThreadShard() < kThreadShards + 1. Indices below kThreadShards belong to
//    one live thread at a time (single writer); kSharedShard is shared by
//    every thread beyond kThreadShards and by threads already running their
//    thread_local destructors, and must be written with atomic
//    read-modify-writes.
//  - The hand-over of an index happens-before its next owner's first use
//    (a std::mutex, which ThreadSanitizer sees).
//  - ThreadShardsInUse(): one more than the highest index ever handed out;
//    a reader sums shards [0, ThreadShardsInUse()) and kSharedShard.
#ifndef ROCKPOOL_COMPRESSION_POOL_THREAD_SHARD_H_
#define ROCKPOOL_COMPRESSION_POOL_THREAD_SHARD_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "compression/fast_tls.h"

namespace rockpool::pool_internal {

inline constexpr size_t kThreadShards = 256;
inline constexpr size_t kSharedShard = kThreadShards;

// -1 until the thread's first pool operation. Constant-initialized, so a
// read is a plain TLS load (no guard, no wrapper call).
extern ROCKPOOL_FAST_TLS int32_t tls_thread_shard;

// Slow path of ThreadShard(): hands this thread an index.
size_t AssignThreadShard();

inline size_t ThreadShard() {
  const int32_t shard = tls_thread_shard;
  return shard >= 0 ? static_cast<size_t>(shard) : AssignThreadShard();
}

size_t ThreadShardsInUse();

}  // namespace rockpool::pool_internal

#endif  // ROCKPOOL_COMPRESSION_POOL_THREAD_SHARD_H_
