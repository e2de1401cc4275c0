// Internals of the legacy runtime shared by the interposers (not an API).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_

#include <lz4hc.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "compression/annotated_mutex.h"
#include "compression/compression_pools.h"
#include "compression/debug_check.h"
#include "compression/fast_tls.h"
#include "rocksdb_plugin/legacy/codec_copies.h"
#include "rocksdb_plugin/legacy/handle_registry.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy::internal {

// A per-thread mark, set while its scope runs on this thread (nestable).
// One template for the marks the interposers read on every call, each its
// own thread-local (runtime.cc defines them).
template <typename Which>
class ThreadMark {
 public:
  ThreadMark() noexcept { ++depth_; }
  ~ThreadMark() { --depth_; }
  ThreadMark(const ThreadMark&) = delete;
  ThreadMark& operator=(const ThreadMark&) = delete;
  static bool active() noexcept { return depth_ > 0; }

 private:
  static ROCKPOOL_FAST_TLS int depth_;
};

// Set while rockpool itself runs pool code on this thread. The pools call
// their copy through its table (compression/codec_library.h), not through
// the interposers; but that copy's own internal calls of an interposed name
// (libzstd's ZSTD_createCCtx inside dictionary training) land here, and must
// be forwarded, not served from the pool being worked on.
struct InsideRockpoolMark;
using InsideRockpool = ThreadMark<InsideRockpoolMark>;
template <>
ROCKPOOL_FAST_TLS int InsideRockpool::depth_;  // runtime.cc

// Set while this thread runs RocksDB's dictionary training
// (ZDICT_trainFromBuffer, ZDICT_finalizeDictionary): libzstd then creates
// CCtxs through the interposed ZSTD_createCCtx and compresses samples on them
// with ZSTD_compressBegin_usingCDict/ZSTD_compressBlock, calls rockpool does
// not see. Those contexts come from their own class (the kTraining role,
// below).
struct InsideDictionaryTrainingMark;
using InsideDictionaryTraining = ThreadMark<InsideDictionaryTrainingMark>;
template <>
ROCKPOOL_FAST_TLS int InsideDictionaryTraining::depth_;  // runtime.cc

// The roles of the legacy face's zstd keys (ZstdKey::role; 0 is the
// general class of whole contexts handed to RocksDB). The routed roles'
// shapes: zstd_routing.cc.
enum ZstdRole : uint8_t {
  kRawDict = 1,       // ZSTD_compress_usingDict: shape {source log, dictionary log}, level
  kDigestedDict = 2,  // ZSTD_compress_usingCDict: shape {source log, CDict class}
  kTraining = 3,      // CCtxs libzstd's dictionary trainer creates (above)
};

// RockpoolOptions::Mode as an int; kForward until Configure().
extern std::atomic<int> g_mode;
// Whether zstd calls are routed to size classes: always, except in test
// builds, where SetZstdSizeClassesForTesting(false) measures what the
// routing removes.
#if ROCKPOOL_DEBUG_CHECKS_ON
extern std::atomic<bool> g_zstd_size_classes;
inline bool ZstdSizeClassesOn() noexcept {
  return g_zstd_size_classes.load(std::memory_order_relaxed);
}
#else
constexpr bool ZstdSizeClassesOn() noexcept { return true; }
#endif

// Arms each codec for binding at its first call, or stands it down where
// the executable defines its entry points (codec_routes.h); idempotent.
// Configure() runs it when pooling.
void ArmCodecs();
// The check an lz4 copy passes before the pools are bound to it
// (lz4_routing.cc): its streams fit the memory rockpool gives them.
absl::Status CheckLz4Copy(Lz4Copy& copy);

// True if a create/init call should try the pool.
inline bool ShouldPool() noexcept {
  return g_mode.load(std::memory_order_relaxed) !=
             static_cast<int>(RockpoolOptions::Mode::kForward) &&
         !InsideRockpool::active();
}

// A context of the zstd size classes (zstd_routing.cc): a pooled CCtx and
// whether it was sized yet for its class's largest call (once; the mark
// survives resets).
struct SizeClassContext {
  std::unique_ptr<ZstdCompressContext> zstd;
  bool sized = false;
};

// ZstdCompressPolicy's contexts, each with its sizing mark.
struct SizeClassPolicy {
  using Context = SizeClassContext;
  using Key = ZstdKey;
  explicit SizeClassPolicy(const ZstdLibrary* lib) : zstd(lib) {}
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats) {
    absl::StatusOr<std::unique_ptr<ZstdCompressContext>> made = zstd.Create(key, stats);
    if (!made.ok()) return made.status();
    std::unique_ptr<Context> context(new (std::nothrow) Context{*std::move(made)});
    if (context == nullptr) return absl::ResourceExhaustedError("zstd size class: out of memory");
    return context;
  }
  absl::Status Reset(Context& context) { return zstd.Reset(*context.zstd); }
  size_t BytesHeld(const Context& context) { return zstd.BytesHeld(*context.zstd); }

  ZstdCompressPolicy zstd;
};
using SizeClassPool = ContextPool<SizeClassPolicy>;

// The legacy face's pools: the shared set the interposers lease from, and
// the zstd size classes its routed compress calls lease from for the length
// of one call (zstd_routing.cc).
struct LegacyPools {
  LegacyPools(const PoolOptions& options, const CodecLibraries& libraries)
      : shared(options, libraries), zstd_size_classes(options, SizeClassPolicy(libraries.zstd)) {}
  void SetOptions(const PoolOptions& options);
  size_t Trim();
  size_t ReleaseExpired();
  // The shared pools' statistics, with the size classes' library (and idle)
  // bytes added to zstd_compress, whose handles' calls they serve; their
  // counts are not (a routed call is not a context stock RocksDB would
  // create).
  CompressionPoolsStats stats() const;

  CompressionPools shared;
  SizeClassPool zstd_size_classes;
};

// The two sides of the zlib transplant, for the code they share
// (zlib_transplant.cc).
struct DeflateSide {
  using Context = DeflateContext;
  using Key = DeflateKey;
  static DeflatePool& pool(CompressionPools& pools) { return pools.deflate(); }
};
struct InflateSide {
  using Context = InflateContext;
  using Key = InflateKey;
  static InflatePool& pool(CompressionPools& pools) { return pools.inflate(); }
};

class Runtime {
 public:
  // Null until the first Configure().
  static Runtime* Get() noexcept { return instance_.load(std::memory_order_acquire); }
  static Runtime& GetOrCreate();

  void Configure(const RockpoolOptions& options, ConfigSource source);
  RockpoolOptions options() const;
  ConfigSource source() const;
  // The pools are created at the first lease, so a process that never
  // compresses pays nothing for them (their mappings, stripe slots and
  // records; the per-thread counters themselves take memory only once a
  // thread counts, compression/pool/thread_front.h). Every Lease* starts
  // with EnsurePools() (false: out of memory, forward the call); pools() is
  // for what only a lease can reach.
  bool EnsurePools() noexcept {
    return ABSL_PREDICT_TRUE(pools_.load(std::memory_order_acquire) != nullptr) || CreatePools();
  }
  CompressionPools& pools() noexcept { return pools_.load(std::memory_order_acquire)->shared; }
  SizeClassPool& zstd_size_classes() noexcept {
    return pools_.load(std::memory_order_acquire)->zstd_size_classes;
  }
  // The pools if a lease created them, else null (statistics, trimming).
  LegacyPools* created_pools() const noexcept { return pools_.load(std::memory_order_acquire); }
  OutstandingLeases outstanding() const;
  uint64_t discarded() const { return discarded_.load(std::memory_order_relaxed); }

  // zstd (interpose_zstd.cc; the routed compress calls: zstd_routing.cc),
  // for callers of the bound copy `z` (codec_routes.h; a lease runs on the
  // pools, which are bound to it already). Lease*: null means "forward to
  // the library". Return*: false means "not one of ours, forward". A context
  // handed out is parked in its pool (Parkable, compression/pool/
  // thread_front.h) and found again through the customMem inside it (at
  // z.custom_mem; ParkedContextBehind, compression/zstd_contexts.h): no
  // table, lock or allocation per lease.
  ZSTD_CCtx* LeaseCCtx() noexcept;
  bool ReturnCCtx(const ZstdCopy& z, ZSTD_CCtx* cctx) noexcept;
  void NoteCCtxWorkers(const ZstdCopy& z, ZSTD_CCtx* cctx) noexcept;  // nbWorkers set > 0
  // The pooled context behind a handle this runtime handed out, or null.
  ZstdCompressContext* LeasedCCtx(const ZstdCopy& z, const ZSTD_CCtx* cctx) const noexcept;
  // One-shot compress calls on a handle this runtime leased: run on a
  // context of the call's size class. false: not routed (forward on cctx);
  // *result is set only when true.
  bool CompressUsingDict(const ZstdCopy& z, ZSTD_CCtx* cctx, void* dst, size_t dst_capacity,
                         const void* src, size_t src_size, const void* dict, size_t dict_size,
                         int level, size_t* result) noexcept;
  bool CompressUsingCDict(const ZstdCopy& z, ZSTD_CCtx* cctx, void* dst, size_t dst_capacity,
                          const void* src, size_t src_size, const ZSTD_CDict* cdict,
                          size_t* result) noexcept;
  ZSTD_DCtx* LeaseDCtx() noexcept;
  bool ReturnDCtx(const ZstdCopy& z, ZSTD_DCtx* dctx) noexcept;

  // lz4 (lz4_routing.cc), for callers of the bound copy. Lease*: a pooled
  // stream, as new, or null ("forward to the library"). ReturnLz4: false if
  // `state` is not a stream this runtime handed out (forward). Either free
  // call returns either kind: liblz4's two frees are both free().
  LZ4_stream_t* LeaseLz4() noexcept;
  LZ4_streamHC_t* LeaseLz4Hc() noexcept;
  bool ReturnLz4(const void* state) noexcept;
  // LZ4_resetStreamHC(stream, level) on a stream this runtime handed out
  // that nobody has used since (FreshLz4HcStream): only the level is set,
  // as LZ4_resetStreamHC_fast does, which leaves exactly the state the full
  // reset would, without clearing its zeroed 256 KiB again. false: not
  // such a stream, forward.
  bool ResetFreshLz4Hc(const Lz4Copy& copy, LZ4_streamHC_t* stream, int level) noexcept;
  bool FreshLz4HcStream(const Lz4Copy& copy, const LZ4_streamHC_t* stream) const noexcept;

  // zlib (Side: DeflateSide or InflateSide; zlib_transplant.cc), for
  // callers of the bound copy.
  // Lease: transplant a pooled, reset state into the caller's z_stream;
  // false: nothing changed, forward to the library.
  template <typename Side>
  bool LeaseZlib(z_streamp strm, const typename Side::Key& key) noexcept;
  // If strm holds one of our states: move it back into its context, return
  // the lease, set *rc to what deflateEnd/inflateEnd would have returned and
  // return true. Otherwise false (forward).
  template <typename Side>
  bool EndZlib(z_streamp strm, int* rc) noexcept;
  // The context whose state strm holds, if ours (found through the
  // stream's own allocator: no lookup); else null.
  template <typename Side>
  typename Side::Context* LeasedZlib(z_streamp strm) const noexcept;

 private:
  Runtime();
  bool CreatePools() noexcept;

  // Runs `call(ZSTD_CCtx*)` on a context of class `key`, sized first with
  // `size` (the call's function on other arguments) if the context is new;
  // false if cctx is not a handle this runtime leased or no context could
  // be had (zstd_routing.cc).
  template <typename Size, typename Call>
  bool RouteCompress(const ZstdCopy& z, ZSTD_CCtx* cctx, const ZstdKey& key, Size&& size,
                     Call&& call, size_t* result) noexcept;
  template <typename Pool, typename Lease>
  void Finish(Pool& pool, Lease lease) noexcept;
  template <typename Pool>
  auto LeaseLz4From(Pool& pool, uintptr_t kind) noexcept;

  static std::atomic<Runtime*> instance_;
  // Never freed once created (see GetOrCreate). Written under config_mu_,
  // so a new pool set starts from the options in force.
  std::atomic<LegacyPools*> pools_{nullptr};
  mutable absl::Mutex config_mu_;
  RockpoolOptions options_ ABSL_GUARDED_BY(config_mu_);
  ConfigSource source_ ABSL_GUARDED_BY(config_mu_) = ConfigSource::kNone;
  std::atomic<uint64_t> discarded_{0};
  // The LZ4 streams handed out: state -> its parked context, tagged with
  // its kind (lz4_routing.cc).
  HandleRegistry lz4_handles_;
};

// Ends an unparked lease: back to the pool (which resets it), or destroyed
// if its parker noted that a reset cannot undo what its user did.
template <typename Pool, typename Lease>
void Runtime::Finish(Pool& pool, Lease lease) noexcept {
  InsideRockpool inside;
  if (lease->discard_when_unparked()) {
    discarded_.fetch_add(1, std::memory_order_relaxed);
    pool.Discard(std::move(lease));
  } else {
    lease.reset();  // back to the pool, which resets it
  }
}

}  // namespace rockpool::legacy::internal

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_INTERNAL_H_
