// The legacy face's process-wide runtime: the pools that serve the zstd and
// zlib calls of an unmodified RocksDB 7.8.3 (and of any other code in the
// process), and the switch that turns that on.
//
// How calls reach the pools: rockpool defines ZSTD_createCCtx/ZSTD_freeCCtx,
// ZSTD_createDCtx/ZSTD_freeDCtx, deflateInit_/deflateInit2_/deflateEnd and
// inflateInit_/inflateInit2_/inflateEnd (plus a few zlib calls that change a
// stream's parameters) in the program itself (Bazel: depend on
// //rocksdb_plugin:legacy, link statically, the cc_binary default) or in
// librockpool_preload.so (LD_PRELOAD). The dynamic linker then binds
// librocksdb.so's calls to rockpool's definitions, which forward to the copy
// of the library their caller would have reached without rockpool
// (codec_routes.h).
//
// Pooling is off until Configure() is called with enabled options, directly,
// by creating a `rockpool` EventListener (listeners={id=rockpool;...}), or by
// ROCKPOOL_OPTIONS at load (environment.h). Off, every call forwards
// unchanged. The configuration is process-wide: the most recent Configure()
// wins, except that re-applying the environment's own options (RocksDB
// re-creating a DB's listener from its OPTIONS file) leaves it the
// environment's.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "compression/compression_pools.h"
#include "compression/counting_allocator.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy {

// Who applied the current configuration.
enum class ConfigSource {
  kNone,         // never configured
  kApi,          // Configure() from code
  kListener,     // a `rockpool` listener (options string, OPTIONS file)
  kEnvironment,  // ROCKPOOL_OPTIONS at load (environment.h)
};

// Applies `options` to the whole process (thread-safe). Turning pooling off
// frees the idle contexts; contexts leased out at that moment are freed when
// their users free them.
void Configure(const RockpoolOptions& options, ConfigSource source = ConfigSource::kApi);
ConfigSource CurrentSource();

// The options last applied (defaults with enabled=false if never).
RockpoolOptions CurrentOptions();
RockpoolOptions::Mode CurrentMode();

// Counters of the pools (all zero before the first Configure()).
CompressionPoolsStats Stats();

// Contexts the interposers handed out and that were not freed yet.
// One field per pool of compression/pool_table.h.
struct OutstandingLeases {
#define ROCKPOOL_OUTSTANDING_FIELD(name, ...) int64_t name = 0;
  ROCKPOOL_POOL_TABLE(ROCKPOOL_OUTSTANDING_FIELD)
#undef ROCKPOOL_OUTSTANDING_FIELD
};
OutstandingLeases Outstanding();

// Leased contexts destroyed instead of pooled because their user changed
// them in a way a reset cannot undo (deflateParams, deflateSetHeader,
// inflateReset2 to another window, inflateValidate, zstd nbWorkers > 0).
uint64_t DiscardedContexts();

// The fix for zstd's reallocation inside pooled contexts (zstd_routing.cc),
// always on in mode kPool: one-shot compress calls (ZSTD_compress_usingDict,
// ZSTD_compress_usingCDict) on a pooled ZSTD_CCtx handle run on a context of
// the call's size class, and the CCtxs of dictionary training come from
// their own class. In test builds (ROCKPOOL_DEBUG_CHECKS) false restores the
// previous behaviour, for measuring what the fix removes
// (tests/rocksdb_plugin/legacy/zstd_churn_test.cc); elsewhere no effect.
void SetZstdSizeClassesForTesting(bool on);

// The RocksDB calls whose codec-library allocations the interposers
// attribute in test builds (compression/counting_allocator.h's tags): how
// the reallocation inside pooled zstd contexts was traced
// (rocksdb_plugin/README.md). Outside test builds every site reads zero.
enum class AllocationSite : int {
  kUnattributed = 0,    // no tag set (the pool's own create/reset, codecs)
  kCreateCCtx,          // ZSTD_createCCtx served from a pool
  kFreeCCtx,            // ZSTD_freeCCtx: the pool's reset
  kCompressUsingDict,   // ZSTD_compress_usingDict (RocksDB 7.8.3, no dict or raw dict)
  kCompressUsingCDict,  // ZSTD_compress_usingCDict (RocksDB 7.8.3, digested dict)
  kTrainDictionary,     // inside ZDICT_trainFromBuffer / ZDICT_finalizeDictionary
  kCount,
};
static_assert(static_cast<int>(AllocationSite::kCount) <= kAllocationTags);
constexpr int Tag(AllocationSite site) { return static_cast<int>(site); }
const char* AllocationSiteName(AllocationSite site);
// Process-wide totals per site (bytes_allocated and allocations).
inline AllocationCounts SiteAllocations(AllocationSite site) {
  return TaggedAllocations(Tag(site));
}

// Frees idle contexts older than idle_seconds / all idle contexts.
size_t ReleaseExpired();
size_t TrimIdle();

// Whether the process's symbols resolve to rockpool, and whether each codec
// is still to be pooled. Asking binds nothing: a codec's copy and its
// private layout are checked, on real contexts, at the codec's first call
// (codec_routes.h); until then a codec counts as poolable unless it stood
// down already.
struct Interposition {
  bool zstd = false;         // ZSTD_createCCtx & co. bind to rockpool
  bool zlib = false;         // deflateInit2_ & co. bind to rockpool
  bool zlib_layout = false;  // zlib streams pooled or to be (not forwarded)
  bool zstd_layout = false;  // zstd contexts pooled or to be (not forwarded)
  bool lz4 = false;          // LZ4_createStream[HC] & co. bind to rockpool
  bool lz4_pooled = false;   // lz4 streams pooled or to be (not forwarded)
  std::string detail;        // why not, if something is false
  std::string ToString() const;
};
Interposition CheckInterposition();

// Per codec, which copy the pools run on, as the stats file's tokens:
// " zstd=pooled|forwarded|unused" and, when calls were forwarded,
// ` zstd_forwarded="<why, naming the object>"`; the same for zlib and lz4
// (rocksdb_plugin/legacy/codec_routes.h).
std::string CodecStates();

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_RUNTIME_H_
