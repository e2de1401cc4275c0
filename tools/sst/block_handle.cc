#include "tools/sst/block_handle.h"

#include "absl/strings/str_cat.h"
#include "compression/coding.h"

namespace rockpool::sst {

std::string BlockHandle::ToString() const { return absl::StrCat("[", offset, ", +", size, ")"); }

bool DecodeBlockHandle(std::string_view* input, BlockHandle* handle) {
  std::string_view copy = *input;
  BlockHandle h;
  if (!GetVarint64(&copy, &h.offset) || !GetVarint64(&copy, &h.size)) {
    return false;
  }
  *handle = h;
  *input = copy;
  return true;
}

void EncodeBlockHandle(const BlockHandle& handle, std::string* dst) {
  PutVarint64(dst, handle.offset);
  PutVarint64(dst, handle.size);
}

bool BlockEndWithTrailer(const BlockHandle& handle, uint64_t* end) {
  const uint64_t kMax = ~uint64_t{0};
  if (handle.size > kMax - kBlockTrailerSize) return false;
  const uint64_t len = handle.size + kBlockTrailerSize;
  if (handle.offset > kMax - len) return false;
  *end = handle.offset + len;
  return true;
}

}  // namespace rockpool::sst
