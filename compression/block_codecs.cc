#include "compression/block_codecs.h"

#include <zstd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"
#include "compression/compression_type.h"

namespace rockpool {

size_t MaxCompressedBlockSize(size_t n) {
  const size_t deflate_bound = n + ((n + 7) >> 3) + ((n + 63) >> 6) + 5 + 6;
  return kMaxBlockPrefixSize + std::max(ZSTD_compressBound(n), deflate_bound);
}

absl::Status BlockCodecs::Compress(std::string_view input, const BlockCompression& how,
                                   std::string* out) const {
  switch (how.type) {
    case compression_type::kZSTD:
      if (how.zstd_cctx == nullptr)
        return zstd_.Compress(input, how.level, how.zstd_dictionary, out);
      return ZstdBlockCodec::CompressWith(how.zstd_cctx, input, how.level, how.zstd_dictionary,
                                          out);
    case compression_type::kZlib:
      return zlib_.Compress(
          input, ZlibBlockOptions{how.level, how.window_bits, how.strategy, how.raw_dictionary},
          out);
    case compression_type::kLZ4:
      if (how.lz4_stream == nullptr && !how.lz4_without_stream) {
        return lz4_.Compress(input, Lz4BlockOptions{false, how.level, how.raw_dictionary}, out);
      }
      return Lz4BlockCodec::CompressWith(how.lz4_stream, input, how.raw_dictionary, out);
    case compression_type::kLZ4HC:
      if (how.lz4hc_stream == nullptr) {
        return lz4_.Compress(input, Lz4BlockOptions{true, how.level, how.raw_dictionary}, out);
      }
      return Lz4BlockCodec::CompressHcWith(how.lz4hc_stream, how.level, input, how.raw_dictionary,
                                           out);
    default:
      out->clear();
      return absl::UnimplementedError(absl::StrCat(
          "rockpool does not encode ", std::string(CompressionTypeName(how.type)), " blocks"));
  }
}

absl::Status BlockCodecs::Decompress(uint8_t type, std::string_view payload,
                                     const ZstdDictionary* dict, std::string* out) const {
  switch (type) {
    case compression_type::kNone:
      out->assign(payload);
      return absl::OkStatus();
    case compression_type::kZSTD:
      return zstd_.Decompress(payload, dict, out);
    case compression_type::kZlib:
      return zlib_.Decompress(payload, dict != nullptr ? dict->raw() : std::string_view(), out);
    case compression_type::kLZ4:
    case compression_type::kLZ4HC:
      return lz4_.Decompress(payload, dict != nullptr ? dict->raw() : std::string_view(), out);
    default:
      return absl::UnimplementedError(absl::StrCat(
          "rockpool does not decode ", std::string(CompressionTypeName(type)), " blocks"));
  }
}

}  // namespace rockpool
