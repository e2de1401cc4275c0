#include "compression/block_codecs.h"

#include "absl/strings/str_cat.h"
#include "compression/compression_type.h"

namespace rockpool {

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
    default:
      return absl::UnimplementedError(absl::StrCat(
          "rockpool does not decode ", std::string(CompressionTypeName(type)), " blocks"));
  }
}

}  // namespace rockpool
