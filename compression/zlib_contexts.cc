#include "compression/zlib_contexts.h"

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace rockpool {
namespace {

absl::Status ZlibError(const ZlibLibrary& lib, const char* what, int code, const z_stream& stream) {
  const std::string detail = stream.msg != nullptr ? stream.msg : lib.zError(code);
  if (code == Z_MEM_ERROR) {
    return absl::ResourceExhaustedError(absl::StrCat("zlib: ", what, ": ", detail));
  }
  return absl::InternalError(absl::StrCat("zlib: ", what, ": ", detail, " (", code, ")"));
}

// zlib's deflate refuses a 256-byte window for raw and gzip streams
// (-8 and 24); inflate accepts them.
bool ValidWindowBits(int wb, bool inflate) {
  if (wb >= -15 && wb <= -9) return true;
  if (wb >= 8 && wb <= 15) return true;
  if (wb >= 25 && wb <= 31) return true;
  return inflate && (wb == -8 || wb == 24 || (wb >= 40 && wb <= 47) || wb == 0);
}

}  // namespace

absl::Status ValidateDeflateKey(const DeflateKey& key) {
  if (key.level < -1 || key.level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("zlib: level ", key.level, " not in -1..9"));
  }
  if (!ValidWindowBits(key.window_bits, /*inflate=*/false)) {
    return absl::InvalidArgumentError(
        absl::StrCat("zlib: window_bits ", key.window_bits,
                     " not in -15..-9 (raw), 8..15 (zlib) or 25..31 (gzip)"));
  }
  if (key.mem_level < 1 || key.mem_level > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat("zlib: mem_level ", key.mem_level, " not in 1..9"));
  }
  if (key.strategy < Z_DEFAULT_STRATEGY || key.strategy > Z_FIXED) {
    return absl::InvalidArgumentError(
        absl::StrCat("zlib: strategy ", key.strategy, " not in 0..4"));
  }
  return absl::OkStatus();
}

absl::Status ValidateInflateKey(const InflateKey& key) {
  if (!ValidWindowBits(key.window_bits, /*inflate=*/true)) {
    return absl::InvalidArgumentError(absl::StrCat("zlib: inflate window_bits ", key.window_bits,
                                                   " not in -15..-8, 8..15, 24..31 or 40..47"));
  }
  return absl::OkStatus();
}

DeflateKey NormalizeDeflateKey(DeflateKey key) {
  if (key.level == Z_DEFAULT_COMPRESSION) key.level = 6;
  return key;
}

ZlibStream::ZlibStream(const ZlibLibrary* lib, AllocationStats* stats, Kind kind)
    : lib_(lib), allocator_(stats), kind_(kind) {
  std::memset(&stream_, 0, sizeof(stream_));
  stream_.zalloc = &Alloc;
  stream_.zfree = &Free;
  stream_.opaque = this;
}

void* ZlibStream::Alloc(void* opaque, unsigned items, unsigned size) {
  // zlib multiplies itself in older versions; do it in 64 bits here.
  const uint64_t bytes = static_cast<uint64_t>(items) * size;
  return static_cast<ZlibStream*>(opaque)->allocator_.Allocate(static_cast<size_t>(bytes));
}

void ZlibStream::Free(void* opaque, void* address) {
  static_cast<ZlibStream*>(opaque)->allocator_.Free(address);
}

DeflateContext::~DeflateContext() {
  if (initialised_) lib_->deflateEnd(&stream_);
}

InflateContext::~InflateContext() {
  if (initialised_) lib_->inflateEnd(&stream_);
}

template <>
const char* const DeflatePolicy::kNames[3] = {"DeflateContext", "deflateInit2", "deflateReset"};

template <>
absl::Status DeflatePolicy::Validate(const DeflateKey& key) {
  return ValidateDeflateKey(key);
}

template <>
int DeflatePolicy::Init(DeflateContext& context, const DeflateKey& key) {
  // deflateInit2() is a macro over deflateInit2_ with the headers' version.
  const int rc =
      lib_->deflateInit2_(context.get(), key.level, Z_DEFLATED, key.window_bits, key.mem_level,
                          key.strategy, ZLIB_VERSION, static_cast<int>(sizeof(z_stream)));
  context.initialised_ = rc == Z_OK;
  return rc;
}

template <>
int DeflatePolicy::ResetCall(DeflateContext& context) {
  return lib_->deflateReset(context.get());
}

template <>
const char* const InflatePolicy::kNames[3] = {"InflateContext", "inflateInit2", "inflateReset2"};

template <>
absl::Status InflatePolicy::Validate(const InflateKey& key) {
  return ValidateInflateKey(key);
}

template <>
int InflatePolicy::Init(InflateContext& context, const InflateKey& key) {
  const int rc = lib_->inflateInit2_(context.get(), key.window_bits, ZLIB_VERSION,
                                     static_cast<int>(sizeof(z_stream)));
  context.initialised_ = rc == Z_OK;
  context.window_bits_ = key.window_bits;
  return rc;
}

template <>
int InflatePolicy::ResetCall(InflateContext& context) {
  return lib_->inflateReset2(context.get(), context.window_bits());
}

template <typename ContextT, typename KeyT>
absl::StatusOr<std::unique_ptr<ContextT>> ZlibPolicy<ContextT, KeyT>::Create(
    const KeyT& key, AllocationStats* stats) {
  if (absl::Status s = Validate(key); !s.ok()) return s;
  std::unique_ptr<Context> context(new (std::nothrow) Context(lib_, stats));
  if (context == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(kNames[0], ": out of memory"));
  }
  const int rc = Init(*context, key);
  if (rc != Z_OK) return ZlibError(*lib_, kNames[1], rc, *context->get());
  return context;
}

template <typename ContextT, typename KeyT>
absl::Status ZlibPolicy<ContextT, KeyT>::Reset(ContextT& context) {
  const int rc = ResetCall(context);
  if (rc != Z_OK) return ZlibError(*lib_, kNames[2], rc, *context.get());
  return absl::OkStatus();
}

template <typename ContextT, typename KeyT>
size_t ZlibPolicy<ContextT, KeyT>::BytesHeld(const ContextT& context) {
  return LibraryBytesHeld(context);
}

// The members that are not inline, for both sides (the whole class would
// also instantiate the default constructor, which needs
// :direct_codec_library).
#define ROCKPOOL_ZLIB_POLICY_MEMBERS(Policy)                                \
  template absl::StatusOr<std::unique_ptr<Policy::Context>> Policy::Create( \
      const Policy::Key& key, AllocationStats* stats);                      \
  template absl::Status Policy::Reset(Policy::Context& context);            \
  template size_t Policy::BytesHeld(const Policy::Context& context);
ROCKPOOL_ZLIB_POLICY_MEMBERS(DeflatePolicy)
ROCKPOOL_ZLIB_POLICY_MEMBERS(InflatePolicy)
#undef ROCKPOOL_ZLIB_POLICY_MEMBERS

}  // namespace rockpool
