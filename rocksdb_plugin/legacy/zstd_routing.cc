// Runtime's routing of ZSTD_compress_usingDict / ZSTD_compress_usingCDict:
// each one-shot compress call on a CCtx rockpool leased runs on a context of
// its size class. Why, with numbers: below. (The leases and returns
// themselves, behind ZSTD_createCCtx/ZSTD_freeCCtx, are in interpose_zstd.cc.)
#define ZSTD_STATIC_LINKING_ONLY

#include <algorithm>
#include <string>

#include "rocksdb_plugin/legacy/codec_copies.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace rockpool::legacy::internal {

// Why the compress calls are routed (measured, tests/rocksdb_plugin/legacy/
// zstd_churn_test.cc, RocksDB 7.8.3, libzstd 1.5.4): RocksDB compresses every
// block of an SST file with the one ZSTD_CCtx of its table builder, through
// ZSTD_compress_usingDict / ZSTD_compress_usingCDict. zstd derives the
// parameters, and so the workspace, from each call's level, source size and
// dictionary: ~4 KiB data blocks need a small one, the index and filter
// blocks at the end of a file (tens of KiB) a larger one, a dictionary or a
// CDict copied into the context larger still. A call that needs more than
// the workspace has reallocates it; a workspace 3x larger than needed for 128
// calls is freed and reallocated smaller (ZSTD_WORKSPACETOOLARGE_*). So a
// kept context that serves mixed shapes keeps reallocating: in the churn
// test, without routing, 99.9% of the pooled CCtxs' library bytes were
// allocated inside these two calls, not by creating or resetting contexts
// (design notes: rocksdb_plugin/DESIGN.md, "zstd inside pooled contexts").
//
// RocksDB's ZSTD_CCtx* is only a handle it passes back to these calls. The
// handle stays a real pooled context (so every other call on it still works),
// but each one-shot call runs on a context leased for that call from the
// size-class pool (ZstdKey): one class per (level, ceil(log2(source size)),
// ceil(log2(dictionary size))) or, for a CDict, per (CDict size class, source
// class). Inside a class the needed workspace differs by less than 2x, so it
// only grows to the class's largest need and never shrinks. The output does
// not depend on which context runs a one-shot call (zstd derives everything
// from the arguments and clears the context's history), so it stays
// byte-identical to stock.
namespace {

// A key's shape bytes (the roles: ZstdRole, runtime_internal.h).
constexpr int kSourceLog = 0;      // ceil(log2(source size))
constexpr int kDictionaryLog = 1;  // kRawDict: ceil(log2(raw dictionary size + 1))
constexpr int kCDictClass = 1;     // kDigestedDict: the CDict's size class (below)

uint8_t CeilLog2(size_t n) {
  uint8_t log = 0;
  while (log < 63 && (size_t{1} << log) < n) ++log;
  return log;
}

// zstd 1.5's ZSTD_MAX_CLEVEL, if the copy lacks ZSTD_maxCLevel.
constexpr int kFallbackMaxLevel = 22;

int ClassLevel(const ZstdCopy& z, int level) {
  if (level == 0) return ZSTD_CLEVEL_DEFAULT;  // zstd's meaning of 0
  const int max = z.ZSTD_maxCLevel != nullptr ? z.ZSTD_maxCLevel() : kFallbackMaxLevel;
  return level > max ? max : level;
}

// A CDict's size reflects the table sizes of its parameters (its level and
// dictionary size): log2 with three mantissa bits separates CDicts whose
// sizes differ by more than ~12% (log <= 31 keeps the class in a byte).
uint8_t CDictClass(const ZstdCopy& z, const ZSTD_CDict* cdict) {
  const size_t size = z.ZSTD_sizeof_CDict != nullptr ? z.ZSTD_sizeof_CDict(cdict) : 0;
  const uint8_t log = std::min<uint8_t>(CeilLog2(size), 31);
  const uint8_t mantissa = log >= 3 ? static_cast<uint8_t>((size >> (log - 3)) & 7) : 0;
  return static_cast<uint8_t>(log * 8 + mantissa);
}

// A new class context is sized once for the largest call of its class (a
// compression of 2^source_log zero bytes, and for a raw dictionary one of
// 2^dictionary_log - 1 bytes, with the call's level or CDict): otherwise it
// would grow in steps, reallocating its whole workspace at each new largest
// block (measured: db_bench zstd, 1 MB files, 10% of stock's bytes instead
// of 2%). Classes above 1 MiB sources are left to grow.
constexpr uint8_t kMaxSizedSourceLog = 20;

// A new context of class `key` is sized once by a compression through
// `compress` (the routed call's own function, level and dictionary) of the
// class's largest source, and for a raw dictionary of its largest size.
template <typename Compress>
void SizeForClass(const ZstdCopy& z, ZSTD_CCtx* cctx, const ZstdKey& key, Compress compress) {
  const uint8_t source_log = key.shape[kSourceLog];
  const uint8_t dictionary_log = key.role == kRawDict ? key.shape[kDictionaryLog] : 0;
  if (source_log > kMaxSizedSourceLog || dictionary_log > kMaxSizedSourceLog) return;
  if (z.ZSTD_compressBound == nullptr) return;
  const std::string source(size_t{1} << source_log, '\0');
  const std::string dictionary(dictionary_log == 0 ? 0 : (size_t{1} << dictionary_log) - 1, '\0');
  std::string out(z.ZSTD_compressBound(source.size()), '\0');
  (void)compress(cctx, out.data(), out.size(), source.data(), source.size(),
                 dictionary.empty() ? nullptr : dictionary.data(), dictionary.size());
}

}  // namespace

template <typename Size, typename Call>
bool Runtime::RouteCompress(const ZstdCopy& z, ZSTD_CCtx* cctx, const ZstdKey& key, Size&& size,
                            Call&& call, size_t* result) noexcept {
  if (LeasedCCtx(z, cctx) == nullptr) return false;
  if (!EnsurePools()) return false;
  InsideRockpool inside;
  try {
    absl::StatusOr<SizeClassPool::Lease> lease = zstd_size_classes().Acquire(key);
    if (!lease.ok()) return false;
    SizeClassContext& context = **lease;
    if (!context.sized) {
      context.sized = true;
      SizeForClass(z, context.zstd->get(), key, size);
    }
    *result = call(context.zstd->get());
    return true;  // the lease goes back (reset) here
  } catch (...) {
    return false;
  }
}

bool Runtime::CompressUsingDict(const ZstdCopy& z, ZSTD_CCtx* cctx, void* dst, size_t dst_capacity,
                                const void* src, size_t src_size, const void* dict,
                                size_t dict_size, int level, size_t* result) noexcept {
  ZstdKey key;
  key.role = kRawDict;
  key.shape[kSourceLog] = CeilLog2(src_size);
  key.shape[kDictionaryLog] = CeilLog2(dict != nullptr ? dict_size + 1 : 0);
  key.level = ClassLevel(z, level);
  if (z.ZSTD_compress_usingDict == nullptr) return false;
  auto size = [&z, level](ZSTD_CCtx* c, void* d, size_t dc, const void* s, size_t n, const void* sd,
                          size_t sdn) {
    return z.ZSTD_compress_usingDict(c, d, dc, s, n, sd, sdn, level);
  };
  auto call = [&](ZSTD_CCtx* c) {
    return z.ZSTD_compress_usingDict(c, dst, dst_capacity, src, src_size, dict, dict_size, level);
  };
  return RouteCompress(z, cctx, key, size, call, result);
}

bool Runtime::CompressUsingCDict(const ZstdCopy& z, ZSTD_CCtx* cctx, void* dst, size_t dst_capacity,
                                 const void* src, size_t src_size, const ZSTD_CDict* cdict,
                                 size_t* result) noexcept {
  if (cdict == nullptr || z.ZSTD_compress_usingCDict == nullptr) return false;  // zstd's own error
  ZstdKey key;
  key.role = kDigestedDict;
  key.shape[kSourceLog] = CeilLog2(src_size);
  key.shape[kCDictClass] = CDictClass(z, cdict);
  auto size = [&z, cdict](ZSTD_CCtx* c, void* d, size_t dc, const void* s, size_t n, const void*,
                          size_t) { return z.ZSTD_compress_usingCDict(c, d, dc, s, n, cdict); };
  auto call = [&](ZSTD_CCtx* c) {
    return z.ZSTD_compress_usingCDict(c, dst, dst_capacity, src, src_size, cdict);
  };
  return RouteCompress(z, cctx, key, size, call, result);
}

}  // namespace rockpool::legacy::internal
