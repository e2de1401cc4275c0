#include "compression/compression_type.h"

namespace rockpool {

std::string_view CompressionTypeName(uint8_t type) {
  switch (type) {
    case compression_type::kNone:
      return "none";
    case compression_type::kSnappy:
      return "snappy";
    case compression_type::kZlib:
      return "zlib";
    case compression_type::kBZip2:
      return "bzip2";
    case compression_type::kLZ4:
      return "lz4";
    case compression_type::kLZ4HC:
      return "lz4hc";
    case compression_type::kXpress:
      return "xpress";
    case compression_type::kZSTD:
      return "zstd";
    default:
      return "custom";
  }
}

bool HasUncompressedSizePrefix(uint8_t type) {
  switch (type) {
    case compression_type::kZlib:
    case compression_type::kBZip2:
    case compression_type::kLZ4:
    case compression_type::kLZ4HC:
    case compression_type::kZSTD:
      return true;
    default:
      return false;
  }
}

}  // namespace rockpool
