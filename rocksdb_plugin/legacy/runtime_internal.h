// Internals of the legacy runtime shared by the interposers (not an API).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_

#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "compression/annotated_mutex.h"
#include "compression/compression_pools.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy::internal {

// Set while rockpool itself runs pool code on this thread: the codec calls
// the pools make (deflateInit2_ for a new context, ZSTD_freeCCtx for a
// destroyed one, ...) land in the interposers too, which then forward them
// straight to the library.
class InsideRockpool {
 public:
  InsideRockpool() noexcept { ++depth_; }
  ~InsideRockpool() { --depth_; }
  InsideRockpool(const InsideRockpool&) = delete;
  InsideRockpool& operator=(const InsideRockpool&) = delete;
  static bool active() noexcept { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

// Set while this thread runs RocksDB's dictionary training
// (ZDICT_trainFromBuffer, ZDICT_finalizeDictionary): libzstd then creates
// CCtxs through the interposed ZSTD_createCCtx and compresses samples on them
// with ZSTD_compressBegin_usingCDict/ZSTD_compressBlock, calls rockpool does
// not see. Those contexts come from their own class (ZstdKey::kTraining).
class InsideDictionaryTraining {
 public:
  InsideDictionaryTraining() noexcept { ++depth_; }
  ~InsideDictionaryTraining() { --depth_; }
  InsideDictionaryTraining(const InsideDictionaryTraining&) = delete;
  InsideDictionaryTraining& operator=(const InsideDictionaryTraining&) = delete;
  static bool active() noexcept { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

// RockpoolOptions::Mode as an int; kForward until Configure().
extern std::atomic<int> g_mode;
// Contexts handed out by the interposers and not yet freed (fast path: a
// free call needs no lookup when nothing is outstanding).
extern std::atomic<int64_t> g_zstd_outstanding;
extern std::atomic<int64_t> g_zlib_outstanding;
extern std::atomic<bool> g_zstd_size_classes;

// True if a create/init call should try the pool.
inline bool ShouldPool() noexcept {
  return g_mode.load(std::memory_order_relaxed) !=
             static_cast<int>(RockpoolOptions::Mode::kForward) &&
         !InsideRockpool::active();
}

// Leases keyed by a pointer (ZSTD_CCtx*, ZSTD_DCtx*, or a zlib stream's
// internal state), sharded to keep lock hold times and contention small.
template <typename Entry>
class LeaseTable {
 public:
  explicit LeaseTable(std::atomic<int64_t>* outstanding) : outstanding_(outstanding) {}

  // Adds `entry` under `key`. On failure (allocation, or a duplicate key,
  // which would be a bug) returns false and leaves `entry` with the caller.
  bool Insert(const void* key, Entry& entry) noexcept {
    Shard& shard = ShardFor(key);
    try {
      AnnotatedMutexLock lock(&shard.mu);
      auto [it, inserted] = shard.map.try_emplace(key, std::move(entry));
      if (!inserted) return false;
    } catch (...) {
      return false;
    }
    count_.fetch_add(1, std::memory_order_relaxed);
    outstanding_->fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // Removes and returns the entry for `key`, if there is one.
  std::optional<Entry> Take(const void* key) noexcept {
    Shard& shard = ShardFor(key);
    std::optional<Entry> out;
    {
      AnnotatedMutexLock lock(&shard.mu);
      auto it = shard.map.find(key);
      if (it == shard.map.end()) return out;
      out.emplace(std::move(it->second));
      shard.map.erase(it);
    }
    count_.fetch_sub(1, std::memory_order_relaxed);
    outstanding_->fetch_sub(1, std::memory_order_relaxed);
    return out;
  }

  // Calls f(entry) under the shard lock; false if `key` is not here.
  template <typename F>
  bool With(const void* key, F&& f) noexcept {
    Shard& shard = ShardFor(key);
    AnnotatedMutexLock lock(&shard.mu);
    auto it = shard.map.find(key);
    if (it == shard.map.end()) return false;
    f(it->second);
    return true;
  }

  int64_t size() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    absl::Mutex mu;
    // Open addressing: no allocation per lease once the table has grown
    // (RocksDB 7.8.3 leases a context per blob and per zlib block; a node
    // per lease was ~1% of BlobDB db_bench's process malloc).
    absl::flat_hash_map<const void*, Entry> map ABSL_GUARDED_BY(mu);
  };
  Shard& ShardFor(const void* key) noexcept {
    const auto bits = reinterpret_cast<uintptr_t>(key);
    return shards_[(bits >> 4 ^ bits >> 12) % kShards];
  }

  Shard shards_[kShards];
  std::atomic<int64_t> count_{0};
  std::atomic<int64_t>* const outstanding_;
};

class Runtime {
 public:
  // Null until the first Configure().
  static Runtime* Get() noexcept { return instance_.load(std::memory_order_acquire); }
  static Runtime& GetOrCreate();

  void Configure(const RockpoolOptions& options, ConfigSource source);
  RockpoolOptions options() const;
  ConfigSource source() const;
  CompressionPools& pools() { return pools_; }
  bool zlib_layout_ok() const { return zlib_layout_ok_; }
  const std::string& zlib_layout_detail() const { return zlib_layout_detail_; }
  OutstandingLeases outstanding() const;
  uint64_t discarded() const { return discarded_.load(std::memory_order_relaxed); }

  // zstd. Lease*: null means "forward to the library". Return*: false means
  // "not one of ours, forward".
  ZSTD_CCtx* LeaseCCtx() noexcept;
  bool ReturnCCtx(ZSTD_CCtx* cctx) noexcept;
  void NoteCCtxWorkers(ZSTD_CCtx* cctx) noexcept;  // nbWorkers set > 0
  // One-shot compress calls on a handle this runtime leased: run on a
  // context of the call's size class. false: not routed (forward on cctx);
  // *result is set only when true.
  bool CompressUsingDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                         size_t src_size, const void* dict, size_t dict_size, int level,
                         size_t* result) noexcept;
  bool CompressUsingCDict(ZSTD_CCtx* cctx, void* dst, size_t dst_capacity, const void* src,
                          size_t src_size, const ZSTD_CDict* cdict, size_t* result) noexcept;
  ZSTD_DCtx* LeaseDCtx() noexcept;
  bool ReturnDCtx(ZSTD_DCtx* dctx) noexcept;

  // zlib: transplant a pooled, reset state into the caller's z_stream.
  // false: nothing changed, forward to the library.
  bool LeaseDeflate(z_streamp strm, const DeflateKey& key) noexcept;
  bool LeaseInflate(z_streamp strm, int window_bits) noexcept;
  // If strm holds one of our states: move it back into its context, return
  // the lease, set *rc to what deflateEnd/inflateEnd would have returned and
  // return true. Otherwise false (forward).
  bool EndDeflate(z_streamp strm, int* rc) noexcept;
  bool EndInflate(z_streamp strm, int* rc) noexcept;
  // True if strm holds one of our states; marks it to be destroyed instead
  // of pooled when it ends.
  bool DiscardDeflateLater(z_streamp strm) noexcept;
  bool DiscardInflateLater(z_streamp strm) noexcept;
  // The window_bits an inflate lease was created for, if strm is ours.
  std::optional<int> InflateWindowBits(z_streamp strm) noexcept;
  bool OwnsDeflate(z_streamp strm) noexcept;
  bool OwnsInflate(z_streamp strm) noexcept;

 private:
  Runtime();

  struct ZstdCEntry {
    ZstdCompressPool::Lease lease;
    bool discard = false;
  };
  struct ZstdDEntry {
    ZstdDecompressPool::Lease lease;
  };
  struct DeflateEntry {
    DeflatePool::Lease lease;
    bool discard = false;
  };
  struct InflateEntry {
    InflatePool::Lease lease;
    int window_bits = 0;
    bool discard = false;
  };

  // Runs `call(ZSTD_CCtx*)` on a context of class `key`; false if cctx is
  // not a handle this runtime leased or no context could be had.
  template <typename Call>
  bool RouteCompress(ZSTD_CCtx* cctx, const ZstdKey& key, Call&& call, size_t* result) noexcept;

  template <typename Pool, typename Lease>
  void Finish(Pool& pool, Lease lease, bool discard) noexcept;

  static std::atomic<Runtime*> instance_;

  CompressionPools pools_;
  mutable absl::Mutex config_mu_;
  RockpoolOptions options_ ABSL_GUARDED_BY(config_mu_);
  ConfigSource source_ ABSL_GUARDED_BY(config_mu_) = ConfigSource::kNone;
  bool zlib_layout_ok_ = false;
  std::string zlib_layout_detail_;
  std::atomic<uint64_t> discarded_{0};

  LeaseTable<ZstdCEntry> cctx_{&g_zstd_outstanding};
  LeaseTable<ZstdDEntry> dctx_{&g_zstd_outstanding};
  LeaseTable<DeflateEntry> deflate_{&g_zlib_outstanding};
  LeaseTable<InflateEntry> inflate_{&g_zlib_outstanding};
};

}  // namespace rockpool::legacy::internal

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_
