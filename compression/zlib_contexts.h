// zlib deflate and inflate streams for the pool.
//
// Each stream allocates through its own CountingAllocator (zalloc/zfree).
// What zlib cannot change without re-initialising is the pool key:
//   deflate: windowBits, memLevel, and also level and strategy. deflateParams
//            could change those two in place, but it is not proven byte-
//            identical to a fresh stream in every zlib version, so streams
//            are keyed by them instead.
//   inflate: windowBits (its framing and window size).
// windowBits follows zlib: -9..-15 raw deflate (RocksDB's format), 8..15
// zlib framing, 25..31 gzip framing. zlib's deflate refuses -8 and 24 (a
// 256-byte window); inflate accepts them, and 40..47 (detect zlib or gzip).
//
// Reset() is deflateReset / inflateReset2(key windowBits): the stream keeps
// its buffers and its key parameters but forgets all data and any
// dictionary. (Plain inflateReset would keep a window size learned from a
// stream header when windowBits is 0, and an inflateValidate setting;
// inflateReset2 re-derives both from windowBits.)
//
// Every zlib call goes through the ZlibLibrary the policy was built with
// (codec_library.h): the copy of zlib that initialised a stream is the only
// one that touches it.
#ifndef ROCKPOOL_COMPRESSION_ZLIB_CONTEXTS_H_
#define ROCKPOOL_COMPRESSION_ZLIB_CONTEXTS_H_

#include <zlib.h>

#include <compare>
#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/codec_library.h"
#include "compression/context_pool.h"
#include "compression/counting_allocator.h"

namespace rockpool {

struct DeflateKey {
  int level = Z_DEFAULT_COMPRESSION;  // normalised: -1 becomes 6
  int window_bits = -14;
  int mem_level = 8;
  int strategy = Z_DEFAULT_STRATEGY;
  auto operator<=>(const DeflateKey&) const = default;
};

struct InflateKey {
  int window_bits = -15;
  auto operator<=>(const InflateKey&) const = default;
};

// Checks the parameters zlib would reject, so callers get a clear message.
absl::Status ValidateDeflateKey(const DeflateKey& key);
absl::Status ValidateInflateKey(const InflateKey& key);
// Z_DEFAULT_COMPRESSION -> 6: both produce identical output, one idle list.
DeflateKey NormalizeDeflateKey(DeflateKey key);

// A z_stream initialised for deflate or inflate. Not copyable or movable:
// zlib's internal state points back at the z_stream.
class ZlibStream : public Parkable {
 public:
  ZlibStream(const ZlibStream&) = delete;
  ZlibStream& operator=(const ZlibStream&) = delete;

  z_stream* get() { return &stream_; }
  const CountingAllocator& allocator() const { return allocator_; }
  // The zlib copy that initialised this stream.
  const ZlibLibrary& library() const { return *lib_; }

 protected:
  // The stream's zalloc/zfree allocate through `allocator_`; its opaque is
  // the ZlibStream itself, so code that sees only a z_stream (the legacy
  // face, after moving a pooled state into RocksDB's stream) gets back to
  // the context. `kind_` tells deflate from inflate.
  enum class Kind : uint8_t { kDeflate, kInflate };
  ZlibStream(const ZlibLibrary* lib, AllocationStats* stats, Kind kind);
  ~ZlibStream() = default;

  // The context of type T whose allocator `stream` allocates with, if any.
  template <typename T>
  static T* FromStream(const z_stream& stream) {
    if (stream.zalloc != &Alloc || stream.opaque == nullptr) return nullptr;
    ZlibStream* owner = static_cast<ZlibStream*>(stream.opaque);
    return owner->kind_ == T::kKind ? static_cast<T*>(owner) : nullptr;
  }

  const ZlibLibrary* lib_;
  CountingAllocator allocator_;
  z_stream stream_;

 private:
  // zlib's zalloc/zfree; `opaque` is the ZlibStream.
  static void* Alloc(void* opaque, unsigned items, unsigned size);
  static void Free(void* opaque, void* address);

  const Kind kind_;
};

class DeflateContext : public ZlibStream {
 public:
  DeflateContext(const ZlibLibrary* lib, AllocationStats* stats) : ZlibStream(lib, stats, kKind) {}
  ~DeflateContext();
  // The context whose state `stream` holds (moved there by the legacy
  // face's transplant, allocating through this context's allocator), if
  // any; else null.
  static DeflateContext* FromStream(const z_stream& stream) {
    return ZlibStream::FromStream<DeflateContext>(stream);
  }

 private:
  template <typename, typename>
  friend struct ZlibPolicy;
  friend class ZlibStream;
  static constexpr Kind kKind = Kind::kDeflate;
  bool initialised_ = false;
};

class InflateContext : public ZlibStream {
 public:
  InflateContext(const ZlibLibrary* lib, AllocationStats* stats) : ZlibStream(lib, stats, kKind) {}
  ~InflateContext();
  // The context whose state `stream` holds (moved there by the legacy
  // face's transplant, allocating through this context's allocator), if
  // any; else null.
  static InflateContext* FromStream(const z_stream& stream) {
    return ZlibStream::FromStream<InflateContext>(stream);
  }
  int window_bits() const { return window_bits_; }

 private:
  template <typename, typename>
  friend struct ZlibPolicy;
  friend class ZlibStream;
  static constexpr Kind kKind = Kind::kInflate;
  bool initialised_ = false;
  int window_bits_ = 0;  // the key's: restored on every reset
};

// The pool policy (context_pool.h) of deflate and inflate contexts. What
// tells the two apart (the key check, the zlib call that sets a context up
// for its key, the one that resets it) is specialised per side in
// zlib_contexts.cc, where both are instantiated.
template <typename ContextT, typename KeyT>
struct ZlibPolicy {
  using Context = ContextT;
  using Key = KeyT;
  // The binary's own zlib (needs :direct_codec_library), or `lib`.
  ZlibPolicy() : lib_(&DirectZlib()) {}
  explicit ZlibPolicy(const ZlibLibrary* lib) : lib_(lib) {}
  const ZlibLibrary& library() const { return *lib_; }
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats);
  absl::Status Reset(Context& context);
  size_t BytesHeld(const Context& context);

 private:
  // Per side: the context's name, the init call's and the reset call's (for
  // errors); Init sets the context up only when it returns Z_OK.
  static const char* const kNames[3];
  static absl::Status Validate(const Key& key);
  int Init(Context& context, const Key& key);
  int ResetCall(Context& context);

  const ZlibLibrary* lib_;
};

using DeflatePolicy = ZlibPolicy<DeflateContext, DeflateKey>;
using InflatePolicy = ZlibPolicy<InflateContext, InflateKey>;

using DeflatePool = ContextPool<DeflatePolicy>;
using InflatePool = ContextPool<InflatePolicy>;

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZLIB_CONTEXTS_H_
