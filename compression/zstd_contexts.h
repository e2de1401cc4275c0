// zstd compression and decompression contexts for the pool.
//
// Every context allocates through its own CountingAllocator
// (ZSTD_createCCtx_advanced with ZSTD_customMem), so the pool knows the exact
// bytes and calls zstd made. Compression contexts are single-threaded
// ("concurrency-1"): ZSTD_c_nbWorkers is set to 0 and verified on creation
// and on every reset, so no worker pool or job buffers are ever allocated.
//
// Level, checksum flag and dictionary are applied per call by the codec;
// Reset() (ZSTD_reset_session_and_parameters) drops every parameter and
// dictionary so the next lease sees a fresh context (a decompression context
// used only for one-shot calls, ZstdDecompressContext::one_shot(), is still
// fresh and is not reset). The key is therefore not
// a parameter of the context but a size class: contexts that serve calls of
// one shape (level, source and dictionary size) keep a workspace of one size,
// which zstd then never regrows or shrinks (see ZstdKey).
#ifndef ROCKPOOL_COMPRESSION_ZSTD_CONTEXTS_H_
#define ROCKPOOL_COMPRESSION_ZSTD_CONTEXTS_H_

// Every zstd call goes through the ZstdLibrary the policy was built with
// (codec_library.h): the copy of libzstd that created a context is the only
// one that touches it.
#include "compression/codec_library.h"

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/context_pool.h"
#include "compression/counting_allocator.h"

namespace rockpool {

// The customMem libzstd keeps inside a context, read as plain bytes at an
// offset the caller found (the legacy face: rocksdb_plugin/legacy/
// zstd_layout.h, which finds its pooled contexts behind RocksDB's handles
// this way). The layout is ZSTD_customMem's (checked in the .cc).
struct ZstdCustomMemView {
  void* (*alloc)(void*, size_t);
  void (*free)(void*, void*);
  void* opaque;
};
inline ZstdCustomMemView ZstdCustomMemAt(const void* handle, size_t offset) {
  ZstdCustomMemView mem;
  std::memcpy(&mem, static_cast<const char*>(handle) + offset, sizeof(mem));
  return mem;
}

// A zstd pool's key: which calls its contexts serve. zstd sizes a context's
// workspace from the parameters it derives from (level, source size,
// dictionary size), regrows it when a call needs more and shrinks it when it
// stayed 3x oversized for 128 calls, so one context that serves mixed shapes
// reallocates over and over; contexts kept apart by shape keep one size.
// The pool gives the fields no meaning beyond equality and order: the caller
// defines its roles and shapes (the legacy face's size classes:
// rocksdb_plugin/legacy/zstd_routing.cc; the native face's working areas:
// rocksdb_plugin/native/pooled_compressors.h). ZstdKey{} (all zero) is the
// general class, for contexts handed out whole (RocksDB's ZSTD_createCCtx,
// the codecs).
struct ZstdKey {
  uint8_t role = 0;       // the caller's kind of use; 0: general
  uint8_t shape[3] = {};  // the caller's size class within the role
  int32_t level = 0;      // the zstd level, for roles that depend on it
  // No padding: equality is one 8-byte compare.
  auto operator<=>(const ZstdKey&) const = default;
  // The pool compares keys on every lease (compression/pool/idle_lists.h).
  bool operator==(const ZstdKey& other) const {
    return std::bit_cast<uint64_t>(*this) == std::bit_cast<uint64_t>(other);
  }
};
static_assert(sizeof(ZstdKey) == sizeof(uint64_t), "ZstdKey::operator== compares 8 bytes");

// What both zstd contexts share: the libzstd copy that made the context, and
// the allocator its customMem names. The customMem's opaque is the context
// itself, so code that sees only a handle's customMem (the legacy face reads
// it out of a ZSTD_CCtx or ZSTD_DCtx RocksDB hands back) gets back to the
// context without a table; `kind_` tells the two kinds apart.
class ZstdContext : public Parkable {
 public:
  ZstdContext(const ZstdContext&) = delete;
  ZstdContext& operator=(const ZstdContext&) = delete;

  const CountingAllocator& allocator() const { return allocator_; }
  // The libzstd copy that created this context.
  const ZstdLibrary& library() const { return *lib_; }

 protected:
  enum class Kind : uint8_t { kCompress, kDecompress };
  ZstdContext(const ZstdLibrary* lib, AllocationStats* stats, Kind kind)
      : lib_(lib), allocator_(stats), kind_(kind) {}
  ~ZstdContext() = default;

  // The context of kind `kind` whose customMem is {alloc, -, opaque}, if
  // that customMem is one of ours; else null.
  static ZstdContext* FromCustomMem(void* (*alloc)(void*, size_t), void* opaque, Kind kind) {
    if (alloc != &Alloc || opaque == nullptr) return nullptr;
    ZstdContext* context = static_cast<ZstdContext*>(opaque);
    return context->kind_ == kind ? context : nullptr;
  }
  // The customMem this context's libzstd handle is created with.
  ZSTD_customMem custom_mem() { return ZSTD_customMem{&Alloc, &Free, this}; }

  const ZstdLibrary* lib_;
  CountingAllocator allocator_;  // must outlive the libzstd handle

 private:
  // zstd's customMem callbacks; `opaque` is the ZstdContext.
  static void* Alloc(void* opaque, size_t size);
  static void Free(void* opaque, void* address);

  const Kind kind_;
};

class ZstdCompressContext : public ZstdContext {
 public:
  ZstdCompressContext(const ZstdLibrary* lib, AllocationStats* stats)
      : ZstdContext(lib, stats, Kind::kCompress) {}
  // The compression context whose customMem is {alloc, -, opaque}, if any.
  static ZstdCompressContext* FromCustomMem(void* (*alloc)(void*, size_t), void* opaque) {
    return static_cast<ZstdCompressContext*>(
        ZstdContext::FromCustomMem(alloc, opaque, Kind::kCompress));
  }
  ~ZstdCompressContext();

  ZSTD_CCtx_s* get() const { return cctx_; }
  const void* handle() const { return cctx_; }

 private:
  friend struct ZstdCompressPolicy;
  ZSTD_CCtx_s* cctx_ = nullptr;
};

class ZstdDecompressContext : public ZstdContext {
 public:
  ZstdDecompressContext(const ZstdLibrary* lib, AllocationStats* stats)
      : ZstdContext(lib, stats, Kind::kDecompress) {}
  // The decompression context whose customMem is {alloc, -, opaque}, if any.
  static ZstdDecompressContext* FromCustomMem(void* (*alloc)(void*, size_t), void* opaque) {
    return static_cast<ZstdDecompressContext*>(
        ZstdContext::FromCustomMem(alloc, opaque, Kind::kDecompress));
  }
  ~ZstdDecompressContext();

  // The context for any use (parameters, ZSTD_DCtx_refDDict, streaming):
  // the next Reset() runs ZSTD_DCtx_reset(ZSTD_reset_session_and_parameters).
  ZSTD_DCtx_s* get() const {
    needs_reset_ = true;
    return dctx_;
  }
  // The context for zstd's one-shot decompression only (ZSTD_decompressDCtx,
  // ZSTD_decompress_usingDDict): those calls set no parameter, dictionary or
  // stream state (each begins its frame afresh), so a context reached only
  // through one_shot() since its last reset is still fresh and Reset()
  // skips ZSTD_DCtx_reset. For callers that decompress once per block (the
  // native face), where the built-in's per-core DCtx is never reset either.
  ZSTD_DCtx_s* one_shot() const { return dctx_; }
  const void* handle() const { return dctx_; }

 private:
  friend struct ZstdDecompressPolicy;
  ZSTD_DCtx_s* dctx_ = nullptr;
  mutable bool needs_reset_ = false;  // get() was called since the last reset
};

struct ZstdCompressPolicy {
  using Context = ZstdCompressContext;
  using Key = ZstdKey;
  // The binary's own libzstd (needs :direct_codec_library), or `lib`.
  ZstdCompressPolicy() : lib_(&DirectZstd()) {}
  explicit ZstdCompressPolicy(const ZstdLibrary* lib) : lib_(lib) {}
  const ZstdLibrary& library() const { return *lib_; }
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats);
  // Inline: runs on every return. Restores every parameter's default,
  // nbWorkers = 0 among them; reading it back (no set) keeps the
  // concurrency-1 check on every reuse.
  absl::Status Reset(Context& context) {
    const ZstdLibrary& lib = *lib_;
    const size_t r = lib.ZSTD_CCtx_reset(context.cctx_, ZSTD_reset_session_and_parameters);
    if (ABSL_PREDICT_FALSE(lib.ZSTD_isError(r))) return ResetFailed(r);
    int workers = 0;
    if (lib.ZSTD_isError(lib.ZSTD_CCtx_getParameter(context.cctx_, ZSTD_c_nbWorkers, &workers))) {
      return absl::OkStatus();  // a single-threaded libzstd has no such parameter
    }
    if (ABSL_PREDICT_FALSE(workers != 0)) return WorkersAfterReset(workers);
    return absl::OkStatus();
  }
  size_t BytesHeld(const Context& context) { return LibraryBytesHeld(context); }

 private:
  absl::Status ResetFailed(size_t zstd_error) const;
  static absl::Status WorkersAfterReset(int workers);
  const ZstdLibrary* lib_;
};

struct ZstdDecompressPolicy {
  using Context = ZstdDecompressContext;
  using Key = ZstdKey;
  // The binary's own libzstd (needs :direct_codec_library), or `lib`.
  ZstdDecompressPolicy() : lib_(&DirectZstd()) {}
  explicit ZstdDecompressPolicy(const ZstdLibrary* lib) : lib_(lib) {}
  const ZstdLibrary& library() const { return *lib_; }
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats);
  // Inline: a context used only through one_shot() comes back once per
  // block and needs nothing (ResetUsed is the out-of-line rest).
  absl::Status Reset(Context& context) {
    if (!context.needs_reset_) return absl::OkStatus();
    return ResetUsed(context);
  }
  absl::Status ResetUsed(Context& context);
  size_t BytesHeld(const Context& context) { return LibraryBytesHeld(context); }

 private:
  const ZstdLibrary* lib_;
};

// The parked pooled context (ZstdCompressContext or ZstdDecompressContext)
// behind a libzstd handle whose customMem sits `custom_mem_offset` bytes in,
// or null if the handle is not one: its customMem must name such a context,
// and that context must own this very handle and be parked. Reads three
// pointers inside the handle, valid memory for any context of that libzstd,
// ours or not. (How the legacy face finds the offset:
// rocksdb_plugin/legacy/zstd_layout.h.)
template <typename Context>
Context* ParkedContextBehind(const void* handle, size_t custom_mem_offset) {
  const ZstdCustomMemView mem = ZstdCustomMemAt(handle, custom_mem_offset);
  Context* context = Context::FromCustomMem(mem.alloc, mem.opaque);
  if (context == nullptr || context->handle() != handle || !context->parked()) return nullptr;
  return context;
}

using ZstdCompressPool = ContextPool<ZstdCompressPolicy>;
using ZstdDecompressPool = ContextPool<ZstdDecompressPolicy>;

// Sets ZSTD_c_nbWorkers to 0 and reads it back (through `lib`, the copy
// that made cctx): the concurrency-1 rule.
absl::Status EnforceSingleThreaded(const ZstdLibrary& lib, ZSTD_CCtx_s* cctx);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZSTD_CONTEXTS_H_
