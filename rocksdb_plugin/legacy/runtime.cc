#include "rocksdb_plugin/legacy/runtime.h"

#include <new>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compression/debug_check.h"
#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/refusal.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"
#include "rocksdb_plugin/legacy/zlib_layout.h"

namespace rockpool::legacy {
namespace {

// What the process runs with before any Configure().
RockpoolOptions DisabledOptions() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

}  // namespace

namespace internal {

template <>
ROCKPOOL_FAST_TLS int InsideRockpool::depth_ = 0;
template <>
ROCKPOOL_FAST_TLS int InsideDictionaryTraining::depth_ = 0;
std::atomic<int> g_mode{static_cast<int>(RockpoolOptions::Mode::kForward)};
#if ROCKPOOL_DEBUG_CHECKS_ON
std::atomic<bool> g_zstd_size_classes{true};
#endif
std::atomic<Runtime*> Runtime::instance_{nullptr};

namespace {

absl::Mutex g_create_mu(absl::kConstInit);

// The layout checks a copy must pass before the pools are bound to it
// (run only on a copy proven coherent: they run it).
absl::Status CheckZstdCopy(ZstdCopy& z) {
  absl::StatusOr<zstd_layout::CustomMemOffsets> found = zstd_layout::FindCustomMem(z);
  if (!found.ok()) return found.status();
  z.custom_mem = *found;
  return absl::OkStatus();
}

absl::Status CheckZlibCopy(ZlibCopy& z) { return zlib_layout::CheckZlibLayout(z); }

}  // namespace

void ArmCodecs() {
  InsideRockpool inside;
  ZstdRoutes().Arm(&CheckZstdCopy);
  ZlibRoutes().Arm(&CheckZlibCopy);
  Lz4Routes().Arm(&CheckLz4Copy);
}

Runtime& Runtime::GetOrCreate() {
  if (Runtime* rt = Get()) return *rt;
  AnnotatedMutexLock lock(&g_create_mu);
  if (Runtime* rt = Get()) return *rt;
  // Never destroyed: RocksDB frees contexts from static destructors and
  // background threads at exit, after this object's destructor would run.
  auto* rt = new Runtime();
  instance_.store(rt, std::memory_order_release);
  return *rt;
}

Runtime::Runtime() : options_(DisabledOptions()) {}

// The pools run on the copies codec_routes.h binds them to (their tables
// are filled before a codec's first lease, which is what creates the pools).
bool Runtime::CreatePools() noexcept {
  InsideRockpool inside;
  AnnotatedMutexLock lock(&config_mu_);
  if (pools_.load(std::memory_order_relaxed) != nullptr) return true;
  // Building the pools throws nothing (compression/context_pool.h); only
  // this allocation can fail.
  auto* pools = new (std::nothrow)
      LegacyPools(options_.ToPoolOptions(),
                  CodecLibraries{ZstdRoutes().pool_library(), ZlibRoutes().pool_library(),
                                 Lz4Routes().pool_library()});
  if (pools == nullptr) return false;  // out of memory: this call forwards, a later one tries again
  pools_.store(pools, std::memory_order_release);
  return true;
}

void Runtime::Configure(const RockpoolOptions& options, ConfigSource source) {
  // Refused (refusal.h): pooling stays off, whoever asks.
  if (!Refusal().ok()) return;
  InsideRockpool inside;
  // Pooling needs a copy of each codec to run the pools on: each is bound
  // at the codec's first call (codec_routes.h), so a process that never
  // calls one pays nothing for it. Armed before config_mu_ is taken: arming
  // runs the loader (dlsym), and a first lease, perhaps inside a dlopen
  // holding the loader's lock, takes config_mu_ to create the pools.
  const bool pooling = options.mode() != RockpoolOptions::Mode::kForward;
  if (pooling) ArmCodecs();
  AnnotatedMutexLock lock(&config_mu_);
  // RocksDB re-creates a DB's listeners from the OPTIONS file it has just
  // written (to verify it): the observer of an environment-configured
  // process comes back as a listener with the same options, which must not
  // take the configuration over. Only a change of options changes hands.
  if (!(options == options_ && source_ == ConfigSource::kEnvironment)) source_ = source;
  options_ = options;
  ZstdRoutes().set_pooling_wanted(pooling);
  ZlibRoutes().set_pooling_wanted(pooling);
  Lz4Routes().set_pooling_wanted(pooling);
  // Capacity 0 unless pooling: shrinking frees every idle context now.
  if (LegacyPools* pools = pools_.load(std::memory_order_relaxed)) {
    pools->SetOptions(options.ToPoolOptions());
  }
  g_mode.store(static_cast<int>(options.mode()), std::memory_order_relaxed);
}

RockpoolOptions Runtime::options() const {
  AnnotatedMutexLock lock(&config_mu_);
  return options_;
}

ConfigSource Runtime::source() const {
  AnnotatedMutexLock lock(&config_mu_);
  return source_;
}

void LegacyPools::SetOptions(const PoolOptions& options) {
  shared.SetOptions(options);
  zstd_size_classes.SetOptions(options);
}

size_t LegacyPools::Trim() { return shared.Trim() + zstd_size_classes.Trim(); }

size_t LegacyPools::ReleaseExpired() {
  return shared.ReleaseExpired() + zstd_size_classes.ReleaseExpired();
}

CompressionPoolsStats LegacyPools::stats() const {
  CompressionPoolsStats s = shared.stats();
  const PoolStats classes = zstd_size_classes.stats();
  s.zstd_compress.idle_bytes += classes.idle_bytes;
  s.zstd_compress.retained_bytes += classes.retained_bytes;
  s.zstd_compress.peak_retained_bytes += classes.peak_retained_bytes;
  s.zstd_compress.library += classes.library;
  return s;
}

// Only the interposers lease from the shared pools (routed calls use the
// size classes), so what they have handed out is what is in use.
OutstandingLeases Runtime::outstanding() const {
  const LegacyPools* pools = created_pools();
  const CompressionPoolsStats stats = pools != nullptr ? pools->stats() : CompressionPoolsStats{};
  OutstandingLeases o;
#define ROCKPOOL_OUTSTANDING(name, ...) o.name = static_cast<int64_t>(stats.name.in_use);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_OUTSTANDING)
#undef ROCKPOOL_OUTSTANDING
  return o;
}

}  // namespace internal

// ---------------------------------------------------------------- public API

using internal::LegacyPools;
using internal::Runtime;

void Configure(const RockpoolOptions& options, ConfigSource source) {
  Runtime::GetOrCreate().Configure(options, source);
}

const char* AllocationSiteName(AllocationSite site) {
  switch (site) {
    case AllocationSite::kUnattributed:
      return "unattributed";
    case AllocationSite::kCreateCCtx:
      return "ZSTD_createCCtx";
    case AllocationSite::kFreeCCtx:
      return "ZSTD_freeCCtx";
    case AllocationSite::kCompressUsingDict:
      return "ZSTD_compress_usingDict";
    case AllocationSite::kCompressUsingCDict:
      return "ZSTD_compress_usingCDict";
    case AllocationSite::kTrainDictionary:
      return "ZDICT_train/finalize";
    case AllocationSite::kCount:
      break;
  }
  return "?";
}

ConfigSource CurrentSource() {
  if (Runtime* rt = Runtime::Get()) return rt->source();
  return ConfigSource::kNone;
}

RockpoolOptions CurrentOptions() {
  if (Runtime* rt = Runtime::Get()) return rt->options();
  return DisabledOptions();
}

RockpoolOptions::Mode CurrentMode() {
  return static_cast<RockpoolOptions::Mode>(internal::g_mode.load(std::memory_order_relaxed));
}

CompressionPoolsStats Stats() {
  Runtime* rt = Runtime::Get();
  LegacyPools* pools = rt != nullptr ? rt->created_pools() : nullptr;
  return pools != nullptr ? pools->stats() : CompressionPoolsStats{};
}

OutstandingLeases Outstanding() {
  if (Runtime* rt = Runtime::Get()) return rt->outstanding();
  return OutstandingLeases{};
}

void SetZstdSizeClassesForTesting([[maybe_unused]] bool on) {
#if ROCKPOOL_DEBUG_CHECKS_ON
  internal::g_zstd_size_classes.store(on, std::memory_order_relaxed);
#endif
}

uint64_t DiscardedContexts() {
  if (Runtime* rt = Runtime::Get()) return rt->discarded();
  return 0;
}

size_t ReleaseExpired() {
  Runtime* rt = Runtime::Get();
  LegacyPools* pools = rt != nullptr ? rt->created_pools() : nullptr;
  if (pools == nullptr) return 0;
  internal::InsideRockpool inside;
  return pools->ReleaseExpired();
}

size_t TrimIdle() {
  Runtime* rt = Runtime::Get();
  LegacyPools* pools = rt != nullptr ? rt->created_pools() : nullptr;
  if (pools == nullptr) return 0;
  internal::InsideRockpool inside;
  return pools->Trim();
}

}  // namespace rockpool::legacy
