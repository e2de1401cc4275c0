#include "compression/lz4_block_codec.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"

namespace rockpool {
namespace {

constexpr size_t kMaxLz4Input = static_cast<size_t>(LZ4_MAX_INPUT_SIZE);

int ClampToInt(size_t n) {
  return static_cast<int>(std::min<size_t>(n, std::numeric_limits<int>::max()));
}

absl::StatusOr<size_t> Finish(int written, size_t capacity) {
  if (written > 0) return static_cast<size_t>(written);
  return absl::FailedPreconditionError(absl::StrCat("lz4: block output over ", capacity, " bytes"));
}

// `compress` on a stream leased from `pool` (returned, and so re-initialised,
// when it is done).
template <typename Pool, typename Compress>
absl::Status OnPooledStream(Pool* pool, Compress compress) {
  absl::StatusOr<typename Pool::Lease> lease = pool->Acquire(Lz4Key{});
  if (!lease.ok()) return lease.status();
  return compress((*lease)->get());
}

// The string form of the *Into calls, sized with LZ4_compressBound as
// RocksDB 7.x sizes it, so the output always fits.
template <typename CompressInto>
absl::Status ToBlock(std::string_view input, std::string* out, CompressInto compress_into) {
  out->clear();
  if (input.size() > kMaxLz4Input) return absl::InvalidArgumentError("lz4: block over 2 GiB");
  const size_t bound = static_cast<size_t>(LZ4_compressBound(static_cast<int>(input.size())));
  return CompressBlockToString("lz4", input.size(), bound, out, compress_into);
}

}  // namespace

absl::StatusOr<size_t> Lz4BlockCodec::CompressInto(LZ4_stream_t* stream, std::string_view input,
                                                   std::string_view dictionary, char* dst,
                                                   size_t capacity) {
  if (input.size() > kMaxLz4Input) return absl::InvalidArgumentError("lz4: block over 2 GiB");
  if (!dictionary.empty()) {
    LZ4_loadDict(stream, dictionary.data(), ClampToInt(dictionary.size()));
  }
  const int n =
      LZ4_compress_fast_continue(stream, input.data(), dst, static_cast<int>(input.size()),
                                 ClampToInt(capacity), /*acceleration=*/1);
  return Finish(n, capacity);
}

absl::StatusOr<size_t> Lz4BlockCodec::CompressHcInto(LZ4_streamHC_t* stream, int level,
                                                     std::string_view input,
                                                     std::string_view dictionary, char* dst,
                                                     size_t capacity) {
  if (input.size() > kMaxLz4Input) return absl::InvalidArgumentError("lz4hc: block over 2 GiB");
  LZ4_resetStreamHC_fast(stream, level);
  if (!dictionary.empty()) {
    LZ4_loadDictHC(stream, dictionary.data(), ClampToInt(dictionary.size()));
  }
  const int n = LZ4_compress_HC_continue(stream, input.data(), dst, static_cast<int>(input.size()),
                                         ClampToInt(capacity));
  return Finish(n, capacity);
}

absl::Status Lz4BlockCodec::DecompressInto(std::string_view payload, std::string_view dictionary,
                                           char* out, size_t size) {
  if (payload.size() > kMaxLz4Input || size > kMaxLz4Input) {
    return absl::InvalidArgumentError("lz4: block over 2 GiB");
  }
  const int n = LZ4_decompress_safe_usingDict(payload.data(), out, static_cast<int>(payload.size()),
                                              static_cast<int>(size), dictionary.data(),
                                              static_cast<int>(dictionary.size()));
  if (n < 0) return absl::DataLossError("lz4 block: corrupt payload");
  if (static_cast<size_t>(n) != size) {
    return absl::DataLossError(
        absl::StrCat("lz4 block: payload decodes to ", n, " bytes, the prefix says ", size));
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> Lz4BlockCodec::CompressWithoutStreamInto(std::string_view input, char* dst,
                                                                size_t capacity) {
  if (input.size() > kMaxLz4Input) return absl::InvalidArgumentError("lz4: block over 2 GiB");
  const int n = LZ4_compress_fast(input.data(), dst, static_cast<int>(input.size()),
                                  ClampToInt(capacity), /*acceleration=*/1);
  return Finish(n, capacity);
}

absl::Status Lz4BlockCodec::CompressWith(LZ4_stream_t* stream, std::string_view input,
                                         std::string_view dictionary, std::string* out) {
  return ToBlock(input, out, [&](char* dst, size_t capacity) {
    return stream != nullptr ? CompressInto(stream, input, dictionary, dst, capacity)
                             : CompressWithoutStreamInto(input, dst, capacity);
  });
}

absl::Status Lz4BlockCodec::CompressHcWith(LZ4_streamHC_t* stream, int rocksdb_level,
                                           std::string_view input, std::string_view dictionary,
                                           std::string* out) {
  return ToBlock(input, out, [&](char* dst, size_t capacity) {
    return CompressHcInto(stream, HcLevel(rocksdb_level), input, dictionary, dst, capacity);
  });
}

absl::Status Lz4BlockCodec::Compress(std::string_view input, const Lz4BlockOptions& options,
                                     std::string* out) const {
  out->clear();
  if (options.high_compression) {
    return OnPooledStream(lz4hc_pool_, [&](LZ4_streamHC_t* stream) {
      return CompressHcWith(stream, options.level, input, options.dictionary, out);
    });
  }
  return OnPooledStream(lz4_pool_, [&](LZ4_stream_t* stream) {
    return CompressWith(stream, input, options.dictionary, out);
  });
}

absl::Status Lz4BlockCodec::Decompress(std::string_view block, std::string_view dictionary,
                                       std::string* out) const {
  return DecompressBlockToString("lz4 block", block, max_uncompressed_size_, out,
                                 [&](std::string_view payload, char* dst, size_t size) {
                                   return DecompressInto(payload, dictionary, dst, size);
                                 });
}

}  // namespace rockpool
