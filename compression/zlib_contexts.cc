#include "compression/zlib_contexts.h"

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace rockpool {
namespace {

absl::Status ZlibError(const ZlibLibrary& lib, const char* what, int code,
                       const z_stream& stream) {
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

ZlibStream::ZlibStream(const ZlibLibrary* lib, AllocationStats* stats)
    : lib_(lib), allocator_(stats) {
  std::memset(&stream_, 0, sizeof(stream_));
  stream_.zalloc = &CountingAllocator::ZlibAlloc;
  stream_.zfree = &CountingAllocator::ZlibFree;
  stream_.opaque = &allocator_;
}

DeflateContext::~DeflateContext() {
  if (initialised_) lib_->deflateEnd(&stream_);
}

InflateContext::~InflateContext() {
  if (initialised_) lib_->inflateEnd(&stream_);
}

absl::StatusOr<std::unique_ptr<DeflateContext>> DeflatePolicy::Create(const DeflateKey& key,
                                                                      AllocationStats* stats) {
  if (absl::Status s = ValidateDeflateKey(key); !s.ok()) return s;
  std::unique_ptr<DeflateContext> context(new (std::nothrow) DeflateContext(lib_, stats));
  if (context == nullptr) return absl::ResourceExhaustedError("DeflateContext: out of memory");
  // deflateInit2() is a macro over deflateInit2_ with the headers' version.
  const int rc = lib_->deflateInit2_(context->get(), key.level, Z_DEFLATED, key.window_bits,
                                     key.mem_level, key.strategy, ZLIB_VERSION,
                                     static_cast<int>(sizeof(z_stream)));
  if (rc != Z_OK) return ZlibError(*lib_, "deflateInit2", rc, *context->get());
  context->initialised_ = true;
  return context;
}

absl::Status DeflatePolicy::Reset(DeflateContext& context) {
  const int rc = lib_->deflateReset(context.get());
  if (rc != Z_OK) return ZlibError(*lib_, "deflateReset", rc, *context.get());
  return absl::OkStatus();
}

size_t DeflatePolicy::BytesHeld(const DeflateContext& context) { return LibraryBytesHeld(context); }

absl::StatusOr<std::unique_ptr<InflateContext>> InflatePolicy::Create(const InflateKey& key,
                                                                      AllocationStats* stats) {
  if (absl::Status s = ValidateInflateKey(key); !s.ok()) return s;
  std::unique_ptr<InflateContext> context(new (std::nothrow) InflateContext(lib_, stats));
  if (context == nullptr) return absl::ResourceExhaustedError("InflateContext: out of memory");
  const int rc = lib_->inflateInit2_(context->get(), key.window_bits, ZLIB_VERSION,
                                     static_cast<int>(sizeof(z_stream)));
  if (rc != Z_OK) return ZlibError(*lib_, "inflateInit2", rc, *context->get());
  context->initialised_ = true;
  context->window_bits_ = key.window_bits;
  return context;
}

absl::Status InflatePolicy::Reset(InflateContext& context) {
  const int rc = lib_->inflateReset2(context.get(), context.window_bits());
  if (rc != Z_OK) return ZlibError(*lib_, "inflateReset2", rc, *context.get());
  return absl::OkStatus();
}

size_t InflatePolicy::BytesHeld(const InflateContext& context) { return LibraryBytesHeld(context); }

}  // namespace rockpool
