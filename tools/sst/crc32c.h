// CRC-32C (Castagnoli), software slicing-by-8, plus RocksDB's masking of
// stored CRCs (util/crc32c.h): rotate right 15 bits, add 0xa282ead8.
#ifndef ROCKPOOL_TOOLS_SST_CRC32C_H_
#define ROCKPOOL_TOOLS_SST_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace rockpool::sst::crc32c {

// crc32c of concat(A, data[0,n)) where init_crc is crc32c(A).
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace rockpool::sst::crc32c

#endif  // ROCKPOOL_TOOLS_SST_CRC32C_H_
