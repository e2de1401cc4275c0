#include "compression/zlib_block_codec.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"

namespace rockpool {
namespace {

constexpr uInt kMaxZlibChunk = std::numeric_limits<uInt>::max();

Bytef* Bytes(const char* p) { return reinterpret_cast<Bytef*>(const_cast<char*>(p)); }

absl::Status SetDeflateDictionary(z_stream* stream, std::string_view dictionary) {
  if (dictionary.empty()) return absl::OkStatus();
  const int rc =
      deflateSetDictionary(stream, Bytes(dictionary.data()), static_cast<uInt>(dictionary.size()));
  if (rc == Z_MEM_ERROR)
    return absl::ResourceExhaustedError("zlib: deflateSetDictionary: out of memory");
  if (rc != Z_OK) return absl::InternalError(absl::StrCat("zlib: deflateSetDictionary (", rc, ")"));
  return absl::OkStatus();
}

// Into deflateBound bytes after `header` bytes of *out (the string forms).
absl::Status DeflateToString(z_stream* stream, std::string_view input, std::string_view dictionary,
                             size_t header, std::string* out) {
  if (input.size() > kMaxZlibChunk) return absl::InvalidArgumentError("zlib: block over 4 GiB");
  // The dictionary first, as RocksDB does: deflateBound sees the stream as
  // deflate will.
  if (absl::Status s = SetDeflateDictionary(stream, dictionary); !s.ok()) {
    out->clear();
    return s;
  }
  const uLong bound = deflateBound(stream, static_cast<uLong>(input.size()));
  out->resize(header + bound);
  absl::StatusOr<size_t> n =
      ZlibBlockCodec::DeflateInto(stream, input, {}, out->data() + header, bound);
  if (!n.ok()) {
    out->clear();
    if (n.status().code() == absl::StatusCode::kFailedPrecondition) {
      return absl::FailedPreconditionError("zlib: output over deflateBound");
    }
    return n.status();
  }
  out->resize(header + *n);
  return absl::OkStatus();
}

}  // namespace

DeflateKey DeflateKeyFor(const ZlibBlockOptions& options) {
  DeflateKey key;
  key.level = options.level == kRocksDbDefaultLevel ? Z_DEFAULT_COMPRESSION : options.level;
  key.window_bits = options.window_bits;
  key.mem_level = 8;  // RocksDB's fixed memLevel
  key.strategy = options.strategy;
  return NormalizeDeflateKey(key);
}

absl::StatusOr<size_t> ZlibBlockCodec::DeflateInto(z_stream* stream, std::string_view input,
                                                   std::string_view dictionary, char* dst,
                                                   size_t capacity) {
  if (input.size() > kMaxZlibChunk) return absl::InvalidArgumentError("zlib: block over 4 GiB");
  if (absl::Status s = SetDeflateDictionary(stream, dictionary); !s.ok()) return s;
  stream->next_in = Bytes(input.data());
  stream->avail_in = static_cast<uInt>(input.size());
  stream->next_out = reinterpret_cast<Bytef*>(dst);
  stream->avail_out = static_cast<uInt>(std::min<size_t>(capacity, kMaxZlibChunk));
  const int rc = deflate(stream, Z_FINISH);
  if (rc == Z_STREAM_END) return capacity - stream->avail_out;
  if (rc == Z_OK || rc == Z_BUF_ERROR) {
    return absl::FailedPreconditionError(
        absl::StrCat("zlib: deflate output over ", capacity, " bytes"));
  }
  return absl::InternalError(absl::StrCat("zlib: deflate failed (", rc, ")"));
}

absl::Status ZlibBlockCodec::InflateInto(z_stream* stream, std::string_view payload,
                                         std::string_view dictionary, char* out, size_t size) {
  if (payload.size() > kMaxZlibChunk || size > kMaxZlibChunk) {
    return absl::DataLossError("zlib block: over 4 GiB");
  }
  if (!dictionary.empty()) {
    const int rc = inflateSetDictionary(stream, Bytes(dictionary.data()),
                                        static_cast<uInt>(dictionary.size()));
    // A raw stream allocates its window here: Z_MEM_ERROR is out of memory.
    if (rc == Z_MEM_ERROR)
      return absl::ResourceExhaustedError("zlib: inflateSetDictionary: out of memory");
    if (rc != Z_OK)
      return absl::InternalError(absl::StrCat("zlib: inflateSetDictionary (", rc, ")"));
  }
  Bytef scratch;  // keeps next_out valid for empty blocks
  stream->next_in = Bytes(payload.data());
  stream->avail_in = static_cast<uInt>(payload.size());
  stream->next_out = size == 0 ? &scratch : reinterpret_cast<Bytef*>(out);
  stream->avail_out = static_cast<uInt>(size);
  const int rc = inflate(stream, Z_FINISH);
  const size_t produced = size - stream->avail_out;
  const size_t left_in = stream->avail_in;
  if (rc == Z_STREAM_END) {
    if (produced != size) {
      return absl::DataLossError(
          absl::StrCat("zlib block: inflated ", produced, " bytes, size prefix declares ", size));
    }
    if (left_in != 0) {
      return absl::DataLossError(absl::StrCat(
          "zlib block: ", left_in, " bytes of trailing garbage after the deflate stream"));
    }
    return absl::OkStatus();
  }
  if (rc == Z_BUF_ERROR || rc == Z_OK) {
    if (stream->avail_out == 0 && left_in != 0) {
      return absl::DataLossError(
          absl::StrCat("zlib block: inflates to more than the declared ", size, " bytes"));
    }
    return absl::DataLossError(
        absl::StrCat("zlib block: truncated deflate stream (", payload.size(), " payload bytes)"));
  }
  if (rc == Z_NEED_DICT) return absl::DataLossError("zlib block: needs a dictionary");
  if (rc == Z_MEM_ERROR) return absl::ResourceExhaustedError("zlib block: out of memory");
  return absl::DataLossError(absl::StrCat("zlib block: corrupt deflate stream: ",
                                          stream->msg != nullptr ? stream->msg : zError(rc)));
}

absl::Status ZlibBlockCodec::CompressWith(z_stream* stream, std::string_view input,
                                          std::string_view dictionary, std::string* out) {
  if (input.size() > kMaxZlibChunk) return absl::InvalidArgumentError("zlib: block over 4 GiB");
  char prefix[kMaxBlockPrefixSize + 1];
  const std::optional<BlockPayloadArea> area = StartBlock(input.size(), prefix, sizeof(prefix));
  if (!area.has_value()) return absl::InvalidArgumentError("zlib: block over 4 GiB");
  out->assign(prefix, area->prefix_size);
  return DeflateToString(stream, input, dictionary, area->prefix_size, out);
}

absl::Status ZlibBlockCodec::DecompressWith(z_stream* stream, std::string_view block,
                                            std::string_view dictionary,
                                            size_t max_uncompressed_size, std::string* out) {
  return DecompressBlockToString("zlib block", block, max_uncompressed_size, out,
                                 [&](std::string_view payload, char* dst, size_t size) {
                                   return InflateInto(stream, payload, dictionary, dst, size);
                                 });
}

absl::Status ZlibBlockCodec::Compress(std::string_view input, const ZlibBlockOptions& options,
                                      std::string* out) const {
  absl::StatusOr<DeflatePool::Lease> lease = deflate_pool_->Acquire(DeflateKeyFor(options));
  if (!lease.ok()) return lease.status();
  return CompressWith((*lease)->get(), input, options.dictionary, out);
}

absl::Status ZlibBlockCodec::Decompress(std::string_view block, std::string_view dictionary,
                                        std::string* out) const {
  absl::StatusOr<InflatePool::Lease> lease = inflate_pool_->Acquire(InflateKey{-15});
  if (!lease.ok()) return lease.status();
  return DecompressWith((*lease)->get(), block, dictionary, max_uncompressed_size_, out);
}

absl::Status ZlibBlockCodec::CompressStream(std::string_view input, int level, int window_bits,
                                            std::string* out) const {
  if (window_bits < 8 || (window_bits > 15 && window_bits < 25) || window_bits > 31) {
    return absl::InvalidArgumentError(absl::StrCat(
        "zlib stream: window_bits ", window_bits, " is not zlib (8..15) or gzip (25..31) framing"));
  }
  DeflateKey key;
  key.level = level;
  key.window_bits = window_bits;
  absl::StatusOr<DeflatePool::Lease> lease = deflate_pool_->Acquire(NormalizeDeflateKey(key));
  if (!lease.ok()) return lease.status();
  return CompressStreamWith((*lease)->get(), input, out);
}

absl::Status ZlibBlockCodec::CompressStreamWith(z_stream* stream, std::string_view input,
                                                std::string* out) {
  out->clear();
  return DeflateToString(stream, input, {}, 0, out);
}

absl::Status ZlibBlockCodec::DecompressStream(std::string_view input, int window_bits,
                                              size_t max_output, std::string* out) const {
  if (window_bits < 8 || (window_bits > 15 && window_bits < 24) ||
      (window_bits > 31 && window_bits < 40) || window_bits > 47) {
    return absl::InvalidArgumentError(
        absl::StrCat("zlib stream: window_bits ", window_bits, " is not 8..15, 24..31 or 40..47"));
  }
  absl::StatusOr<InflatePool::Lease> lease = inflate_pool_->Acquire(InflateKey{window_bits});
  if (!lease.ok()) return lease.status();
  return DecompressStreamWith((*lease)->get(), input, max_output, out);
}

absl::Status ZlibBlockCodec::DecompressStreamWith(z_stream* stream, std::string_view input,
                                                  size_t max_output, std::string* out) {
  if (input.size() > kMaxZlibChunk) return absl::InvalidArgumentError("zlib stream: over 4 GiB");
  out->clear();
  stream->next_in = Bytes(input.data());
  stream->avail_in = static_cast<uInt>(input.size());
  // Grow geometrically, never past max_output (+1 to detect overflow;
  // max_output == SIZE_MAX means no limit and must not wrap to 0).
  const size_t limit =
      max_output < std::numeric_limits<size_t>::max() ? max_output + 1 : max_output;
  size_t capacity = std::min<size_t>(std::max<size_t>(input.size() * 4, 4096), limit);
  for (;;) {
    const size_t used = out->size();
    out->resize(capacity);
    const uInt chunk = static_cast<uInt>(std::min<size_t>(capacity - used, kMaxZlibChunk));
    stream->next_out = reinterpret_cast<Bytef*>(out->data() + used);
    stream->avail_out = chunk;
    const int rc = inflate(stream, Z_NO_FLUSH);
    out->resize(used + (chunk - stream->avail_out));
    if (out->size() > max_output) {
      out->clear();
      return absl::OutOfRangeError(
          absl::StrCat("zlib stream: inflates to more than ", max_output, " bytes"));
    }
    if (rc == Z_STREAM_END) {
      if (stream->avail_in != 0) {
        const size_t left = stream->avail_in;
        out->clear();
        return absl::DataLossError(
            absl::StrCat("zlib stream: ", left, " bytes of trailing garbage"));
      }
      return absl::OkStatus();
    }
    if (rc == Z_OK) {
      if (stream->avail_out == 0) {
        capacity = capacity > limit / 2 ? limit : capacity * 2;
        continue;
      }
      continue;  // made progress with input left; loop again
    }
    out->clear();
    if (rc == Z_BUF_ERROR) return absl::DataLossError("zlib stream: truncated");
    if (rc == Z_MEM_ERROR) return absl::ResourceExhaustedError("zlib stream: out of memory");
    return absl::DataLossError(
        absl::StrCat("zlib stream: corrupt: ", stream->msg != nullptr ? stream->msg : zError(rc)));
  }
}

}  // namespace rockpool
