#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_getParameter

#include "rocksdb_plugin/legacy/runtime.h"

#include <dlfcn.h>

#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "compression/counting_allocator.h"
#include "rocksdb_plugin/legacy/real_functions.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"
#include "rocksdb_plugin/legacy/zlib_layout.h"

namespace rockpool::legacy {
namespace internal {

thread_local int InsideRockpool::depth_ = 0;
thread_local int InsideDictionaryTraining::depth_ = 0;
std::atomic<int> g_mode{static_cast<int>(RockpoolOptions::Mode::kForward)};
std::atomic<int64_t> g_zstd_outstanding{0};
std::atomic<int64_t> g_zlib_outstanding{0};
std::atomic<bool> g_zstd_size_classes{true};
std::atomic<Runtime*> Runtime::instance_{nullptr};

namespace {

absl::Mutex g_create_mu(absl::kConstInit);

RockpoolOptions DisabledOptions() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

}  // namespace

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

Runtime::Runtime() : pools_(DisabledOptions().ToPoolOptions()), options_(DisabledOptions()) {
  InsideRockpool inside;
  zlib_layout_ok_ = zlib_layout::CheckZlibLayout(&zlib_layout_detail_);
}

void Runtime::Configure(const RockpoolOptions& options, ConfigSource source) {
  InsideRockpool inside;
  AnnotatedMutexLock lock(&config_mu_);
  // RocksDB re-creates a DB's listeners from the OPTIONS file it has just
  // written (to verify it): the observer of an environment-configured
  // process comes back as a listener with the same options, which must not
  // take the configuration over. Only a change of options changes hands.
  if (!(options == options_ && source_ == ConfigSource::kEnvironment)) source_ = source;
  options_ = options;
  // Capacity 0 unless pooling: shrinking frees every idle context now.
  pools_.SetOptions(options.ToPoolOptions());
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

OutstandingLeases Runtime::outstanding() const {
  OutstandingLeases o;
  o.zstd_compress = cctx_.size();
  o.zstd_decompress = dctx_.size();
  o.deflate = deflate_.size();
  o.inflate = inflate_.size();
  return o;
}

template <typename Pool, typename Lease>
void Runtime::Finish(Pool& pool, Lease lease, bool discard) noexcept {
  InsideRockpool inside;
  if (discard) {
    discarded_.fetch_add(1, std::memory_order_relaxed);
    pool.Discard(std::move(lease));
  } else {
    lease.reset();  // back to the pool, which resets it
  }
}

// ---------------------------------------------------------------- zstd

ZSTD_CCtx* Runtime::LeaseCCtx() noexcept {
  InsideRockpool inside;
  ScopedAllocationSite site(AllocationSite::kCreateCCtx);
  try {
    // Measured (zstd_churn_test, size classes off): the contexts of
    // dictionary training grow to ~0.5 MB (level 3, 16 KiB dictionary);
    // shared with RocksDB's table builders they were shrunk and regrown:
    // ZDICT_* made 69% of the pooled CCtx bytes in steady state. Their own
    // class (plus routing the trainer's ZSTD_compress_usingCDict calls)
    // keeps every size put.
    ZstdKey key;
    if (InsideDictionaryTraining::active() && g_zstd_size_classes.load(std::memory_order_relaxed)) {
      key.kind = ZstdKey::kTraining;
    }
    absl::StatusOr<ZstdCompressPool::Lease> lease = pools_.zstd_compress().Acquire(key);
    if (!lease.ok()) return nullptr;
    ZSTD_CCtx* cctx = (*lease)->get();
    ZstdCEntry entry{std::move(*lease)};
    if (!cctx_.Insert(cctx, entry)) return nullptr;  // entry's lease goes back
    return cctx;
  } catch (...) {
    return nullptr;
  }
}

bool Runtime::ReturnCCtx(ZSTD_CCtx* cctx) noexcept {
  std::optional<ZstdCEntry> entry = cctx_.Take(cctx);
  if (!entry) return false;
  bool discard = entry->discard;
  // Workers set through some other API (e.g. CCtx params): never pool a
  // context that may own a worker pool.
  int workers = 0;
  if (!discard && !ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers)) &&
      workers != 0) {
    discard = true;
  }
  ScopedAllocationSite site(AllocationSite::kFreeCCtx);
  Finish(pools_.zstd_compress(), std::move(entry->lease), discard);
  return true;
}

void Runtime::NoteCCtxWorkers(ZSTD_CCtx* cctx) noexcept {
  cctx_.With(cctx, [](ZstdCEntry& e) { e.discard = true; });
}

ZSTD_DCtx* Runtime::LeaseDCtx() noexcept {
  InsideRockpool inside;
  try {
    absl::StatusOr<ZstdDecompressPool::Lease> lease = pools_.zstd_decompress().Acquire(ZstdKey{});
    if (!lease.ok()) return nullptr;
    ZSTD_DCtx* dctx = (*lease)->get();
    ZstdDEntry entry{std::move(*lease)};
    if (!dctx_.Insert(dctx, entry)) return nullptr;
    return dctx;
  } catch (...) {
    return nullptr;
  }
}

bool Runtime::ReturnDCtx(ZSTD_DCtx* dctx) noexcept {
  std::optional<ZstdDEntry> entry = dctx_.Take(dctx);
  if (!entry) return false;
  Finish(pools_.zstd_decompress(), std::move(entry->lease), false);
  return true;
}

// ---------------------------------------------------------------- zlib

namespace {

// Moves the state (and the allocator that owns its memory) of `from` into
// `to`, exactly as a fresh deflateInit2_/inflateInit2_ on `to` would leave
// it: next_in/avail_in/next_out/avail_out untouched, msg null, totals zero.
void MoveState(z_stream* from, z_streamp to) {
  void* state = from->state;
  to->zalloc = from->zalloc;
  to->zfree = from->zfree;
  to->opaque = from->opaque;
  to->state = from->state;
  zlib_layout::SetBackPointer(state, to);
  from->state = nullptr;
}

}  // namespace

bool Runtime::LeaseDeflate(z_streamp strm, const DeflateKey& key) noexcept {
  if (!zlib_layout_ok_) return false;
  InsideRockpool inside;
  try {
    absl::StatusOr<DeflatePool::Lease> lease = pools_.deflate().Acquire(key);
    if (!lease.ok()) return false;
    z_stream* own = (*lease)->get();
    void* state = own->state;
    DeflateEntry entry{std::move(*lease)};
    if (!deflate_.Insert(state, entry)) return false;
    // The context was created or deflateReset: exactly a fresh stream.
    MoveState(own, strm);
    strm->msg = own->msg;
    strm->total_in = own->total_in;
    strm->total_out = own->total_out;
    strm->data_type = own->data_type;
    strm->adler = own->adler;
    return true;
  } catch (...) {
    return false;
  }
}

bool Runtime::EndDeflate(z_streamp strm, int* rc) noexcept {
  void* state = strm->state;
  // deflateStateCheck's conditions: if they fail, zlib returns
  // Z_STREAM_ERROR and frees nothing; so does the forwarded call.
  if (state == nullptr || strm->zalloc == nullptr || strm->zfree == nullptr ||
      zlib_layout::BackPointer(state) != strm) {
    return false;
  }
  const int status = zlib_layout::DeflateStatus(state);
  if (!zlib_layout::ValidDeflateStatus(status)) return false;
  std::optional<DeflateEntry> entry = deflate_.Take(state);
  if (!entry) return false;
  z_stream* own = entry->lease->get();
  own->state = static_cast<internal_state*>(state);
  zlib_layout::SetBackPointer(state, own);
  // Not left pointing at our allocator: a caller that re-initialises this
  // z_stream without clearing it gets the default allocator, as it would
  // after a real deflateEnd.
  strm->state = nullptr;
  strm->zalloc = nullptr;
  strm->zfree = nullptr;
  strm->opaque = nullptr;
  *rc = zlib_layout::DeflateEndResult(status);
  Finish(pools_.deflate(), std::move(entry->lease), entry->discard);
  return true;
}

bool Runtime::LeaseInflate(z_streamp strm, int window_bits) noexcept {
  if (!zlib_layout_ok_) return false;
  InsideRockpool inside;
  try {
    absl::StatusOr<InflatePool::Lease> lease = pools_.inflate().Acquire(InflateKey{window_bits});
    if (!lease.ok()) return false;
    z_stream* own = (*lease)->get();
    void* state = own->state;
    InflateEntry entry{std::move(*lease), window_bits};
    if (!inflate_.Insert(state, entry)) return false;
    MoveState(own, strm);
    strm->msg = own->msg;
    strm->total_in = own->total_in;
    strm->total_out = own->total_out;
    // inflateResetKeep sets adler only for zlib/gzip framing.
    if (window_bits >= 0) strm->adler = own->adler;
    return true;
  } catch (...) {
    return false;
  }
}

bool Runtime::EndInflate(z_streamp strm, int* rc) noexcept {
  void* state = strm->state;
  if (state == nullptr || strm->zalloc == nullptr || strm->zfree == nullptr ||
      zlib_layout::BackPointer(state) != strm) {
    return false;
  }
  std::optional<InflateEntry> entry = inflate_.Take(state);
  if (!entry) return false;
  z_stream* own = entry->lease->get();
  own->state = static_cast<internal_state*>(state);
  zlib_layout::SetBackPointer(state, own);
  strm->state = nullptr;
  strm->zalloc = nullptr;
  strm->zfree = nullptr;
  strm->opaque = nullptr;
  *rc = Z_OK;
  // The pool's inflateReset keeps what a stream may have learnt from its
  // header (windowBits 0 takes the window size from the zlib header) and
  // the check mode: restore the key's parameters exactly, as a fresh
  // inflateInit2 would. inflateReset2 keeps the window if its size holds.
  bool discard = entry->discard;
  {
    InsideRockpool inside;
    if (real::inflateReset2(own, entry->window_bits) != Z_OK) discard = true;
  }
  Finish(pools_.inflate(), std::move(entry->lease), discard);
  return true;
}

bool Runtime::DiscardDeflateLater(z_streamp strm) noexcept {
  if (strm == nullptr || strm->state == nullptr) return false;
  return deflate_.With(strm->state, [](DeflateEntry& e) { e.discard = true; });
}

bool Runtime::DiscardInflateLater(z_streamp strm) noexcept {
  if (strm == nullptr || strm->state == nullptr) return false;
  return inflate_.With(strm->state, [](InflateEntry& e) { e.discard = true; });
}

std::optional<int> Runtime::InflateWindowBits(z_streamp strm) noexcept {
  std::optional<int> out;
  if (strm == nullptr || strm->state == nullptr) return out;
  inflate_.With(strm->state, [&](InflateEntry& e) { out = e.window_bits; });
  return out;
}

bool Runtime::OwnsDeflate(z_streamp strm) noexcept {
  if (strm == nullptr || strm->state == nullptr) return false;
  return deflate_.With(strm->state, [](DeflateEntry&) {});
}

bool Runtime::OwnsInflate(z_streamp strm) noexcept {
  if (strm == nullptr || strm->state == nullptr) return false;
  return inflate_.With(strm->state, [](InflateEntry&) {});
}

}  // namespace internal

// ---------------------------------------------------------------- public API

using internal::Runtime;

void Configure(const RockpoolOptions& options, ConfigSource source) {
  Runtime::GetOrCreate().Configure(options, source);
}

ConfigSource CurrentSource() {
  if (Runtime* rt = Runtime::Get()) return rt->source();
  return ConfigSource::kNone;
}

RockpoolOptions CurrentOptions() {
  if (Runtime* rt = Runtime::Get()) return rt->options();
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

RockpoolOptions::Mode CurrentMode() {
  return static_cast<RockpoolOptions::Mode>(internal::g_mode.load(std::memory_order_relaxed));
}

CompressionPoolsStats Stats() {
  if (Runtime* rt = Runtime::Get()) return rt->pools().stats();
  return CompressionPoolsStats{};
}

OutstandingLeases Outstanding() {
  if (Runtime* rt = Runtime::Get()) return rt->outstanding();
  return OutstandingLeases{};
}

void SetZstdSizeClasses(bool on) {
  internal::g_zstd_size_classes.store(on, std::memory_order_relaxed);
}

bool ZstdSizeClasses() { return internal::g_zstd_size_classes.load(std::memory_order_relaxed); }

uint64_t DiscardedContexts() {
  if (Runtime* rt = Runtime::Get()) return rt->discarded();
  return 0;
}

size_t ReleaseExpired() {
  Runtime* rt = Runtime::Get();
  if (rt == nullptr) return 0;
  internal::InsideRockpool inside;
  return rt->pools().ReleaseExpired();
}

size_t TrimIdle() {
  Runtime* rt = Runtime::Get();
  if (rt == nullptr) return 0;
  internal::InsideRockpool inside;
  return rt->pools().Trim();
}

namespace {

void Anchor() {}

// True if the process-wide definition of `name` lives in the object that
// holds this code (the executable or librockpool_preload.so).
bool BoundHere(const char* name, std::string* detail) {
  Dl_info mine;
  Dl_info theirs;
  void* global = dlsym(RTLD_DEFAULT, name);
  if (dladdr(reinterpret_cast<void*>(&Anchor), &mine) == 0) {
    absl::StrAppend(detail, "cannot locate rockpool's own object; ");
    return false;
  }
  if (global == nullptr || dladdr(global, &theirs) == 0) {
    absl::StrAppend(detail, name, " not found; ");
    return false;
  }
  if (theirs.dli_fbase != mine.dli_fbase) {
    absl::StrAppend(detail, name, " resolves to ",
                    theirs.dli_fname != nullptr ? theirs.dli_fname : "?", ", not to rockpool (",
                    mine.dli_fname != nullptr ? mine.dli_fname : "?", "); ");
    return false;
  }
  return true;
}

}  // namespace

Interposition CheckInterposition() {
  Interposition out;
  out.zstd = true;
  for (const char* name :
       {"ZSTD_createCCtx", "ZSTD_freeCCtx", "ZSTD_createDCtx", "ZSTD_freeDCtx"}) {
    out.zstd = BoundHere(name, &out.detail) && out.zstd;
  }
  out.zlib = true;
  for (const char* name : {"deflateInit2_", "deflateEnd", "inflateInit2_", "inflateEnd"}) {
    out.zlib = BoundHere(name, &out.detail) && out.zlib;
  }
  Runtime& rt = Runtime::GetOrCreate();
  out.zlib_layout = rt.zlib_layout_ok();
  if (!out.zlib_layout) absl::StrAppend(&out.detail, rt.zlib_layout_detail());
  return out;
}

std::string Interposition::ToString() const {
  std::string s = absl::StrCat(
      "zstd ", zstd ? "interposed" : "NOT interposed", ", zlib ",
      zlib ? (zlib_layout ? "interposed" : "interposed but forwarded") : "NOT interposed");
  if (!detail.empty()) absl::StrAppend(&s, " (", detail, ")");
  return s;
}

}  // namespace rockpool::legacy
