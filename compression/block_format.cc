#include "compression/block_format.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rockpool {

std::string BlockTypeName(uint8_t type) {
  switch (static_cast<BlockType>(type)) {
    case BlockType::kNone: return "NoCompression";
    case BlockType::kSnappy: return "Snappy";
    case BlockType::kZlib: return "Zlib";
    case BlockType::kBZip2: return "BZip2";
    case BlockType::kLZ4: return "LZ4";
    case BlockType::kLZ4HC: return "LZ4HC";
    case BlockType::kXpress: return "Xpress";
    case BlockType::kZstd: return "ZSTD";
  }
  return absl::StrFormat("Unknown(0x%02x)", type);
}

size_t PutVarint32(std::string* dst, uint32_t value) {
  size_t n = 0;
  while (value >= 0x80) {
    dst->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
    ++n;
  }
  dst->push_back(static_cast<char>(value));
  return n + 1;
}

absl::StatusOr<uint32_t> GetVarint32(std::string_view* input) {
  uint32_t result = 0;
  for (size_t i = 0; i < 5; ++i) {
    if (i >= input->size()) {
      return absl::DataLossError("truncated varint32 size prefix");
    }
    const uint8_t byte = static_cast<uint8_t>((*input)[i]);
    if (i == 4 && byte > 0x0f) {
      return absl::DataLossError("varint32 size prefix overflows 32 bits");
    }
    result |= static_cast<uint32_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      input->remove_prefix(i + 1);
      return result;
    }
  }
  return absl::DataLossError("varint32 size prefix longer than 5 bytes");
}

absl::StatusOr<BlockPrefix> ParseBlockPrefix(std::string_view block, size_t max_uncompressed_size) {
  std::string_view rest = block;
  absl::StatusOr<uint32_t> size = GetVarint32(&rest);
  if (!size.ok()) return size.status();
  if (*size > max_uncompressed_size) {
    return absl::OutOfRangeError(absl::StrCat("block declares ", *size,
                                              " uncompressed bytes, over the limit of ",
                                              max_uncompressed_size));
  }
  return BlockPrefix{*size, rest};
}

}  // namespace rockpool
