#include "tools/sst/crc32c.h"

#include <array>

namespace rockpool::sst::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t s = 1; s < 8; ++s) {
      t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
    }
  }
  return t;
}

constexpr Tables kTables = MakeTables();

inline uint32_t Byte(const char* p, size_t i) { return static_cast<unsigned char>(p[i]); }

}  // namespace

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  uint32_t c = ~init_crc;
  while (n >= 8) {
    const uint32_t lo =
        c ^ (Byte(data, 0) | Byte(data, 1) << 8 | Byte(data, 2) << 16 | Byte(data, 3) << 24);
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
        kTables[4][lo >> 24] ^ kTables[3][Byte(data, 4)] ^ kTables[2][Byte(data, 5)] ^
        kTables[1][Byte(data, 6)] ^ kTables[0][Byte(data, 7)];
    data += 8;
    n -= 8;
  }
  while (n-- > 0) {
    c = (c >> 8) ^ kTables[0][(c ^ Byte(data, 0)) & 0xff];
    ++data;
  }
  return ~c;
}

}  // namespace rockpool::sst::crc32c
