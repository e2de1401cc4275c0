#include "compression/block_codecs.h"

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"

namespace rockpool {

absl::Status BlockCodecs::Decompress(uint8_t type, std::string_view payload,
                                     const ZstdDictionary* dict, std::string* out) const {
  switch (static_cast<BlockType>(type)) {
    case BlockType::kNone:
      out->assign(payload);
      return absl::OkStatus();
    case BlockType::kZstd:
      return zstd_.Decompress(payload, dict, out);
    case BlockType::kZlib:
      return zlib_.Decompress(payload, dict != nullptr ? dict->raw() : std::string_view(), out);
    default:
      return absl::UnimplementedError(
          absl::StrCat("rockpool does not decode ", BlockTypeName(type), " blocks"));
  }
}

}  // namespace rockpool
