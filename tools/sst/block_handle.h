// BlockHandle: where a block lives in an SST file. Encoded as two varint64s
// (offset, size). `size` excludes the 5-byte block trailer (compression type
// byte + 32-bit checksum) that follows every block of a block-based table.
#ifndef ROCKPOOL_TOOLS_SST_BLOCK_HANDLE_H_
#define ROCKPOOL_TOOLS_SST_BLOCK_HANDLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rockpool::sst {

inline constexpr size_t kBlockTrailerSize = 5;
inline constexpr size_t kMaxBlockHandleEncodedLength = 20;  // 2 x varint64

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;

  bool IsNull() const { return offset == 0 && size == 0; }
  friend bool operator==(const BlockHandle&, const BlockHandle&) = default;
  // "[offset, offset+size)" for messages.
  std::string ToString() const;
};

// Consumes a handle from the front of *input. False on malformed input.
bool DecodeBlockHandle(std::string_view* input, BlockHandle* handle);
void EncodeBlockHandle(const BlockHandle& handle, std::string* dst);

// offset + size + kBlockTrailerSize, or false if that overflows uint64.
bool BlockEndWithTrailer(const BlockHandle& handle, uint64_t* end);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_BLOCK_HANDLE_H_
