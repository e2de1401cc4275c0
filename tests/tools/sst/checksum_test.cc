// Checksum values pinned by RocksDB's own table_test.cc (ChecksumSchemas),
// so our implementation is bit-exact with every RocksDB version.
#include "tools/sst/checksum.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tools/sst/crc32c.h"

namespace rockpool::sst {
namespace {

// Little-endian hex of the checksum, as RocksDB's test prints it.
std::string ChecksumHex(std::string data, char last_byte, ChecksumType type) {
  if (!data.empty()) data.back() = last_byte;
  std::string raw;
  PutFixed32(&raw, ComputeBuiltinChecksum(type, data.data(), data.size()));
  std::string hex;
  for (char c : raw) absl::StrAppendFormat(&hex, "%02X", static_cast<unsigned char>(c));
  return hex;
}

struct Inputs {
  std::string b0 = "x";
  std::string b1 = "This is a short block!x";
  std::string b2;
  Inputs() {
    for (int i = 0; i < 100; ++i) b2.append("This is a long block!");
    b2.append("x");
  }
};

constexpr char kNone = 0, kSnappy = 1, kZstd = 7;

void ExpectSchema(ChecksumType t, const char* empty, const char* const (&v)[9]) {
  Inputs in;
  EXPECT_EQ(ChecksumHex("", 0, t), empty);
  const std::string* blocks[] = {&in.b0, &in.b1, &in.b2};
  const char types[] = {kNone, kSnappy, kZstd};
  for (int b = 0; b < 3; ++b) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(ChecksumHex(*blocks[b], types[c], t), v[b * 3 + c])
          << ChecksumTypeName(t) << " block " << b << " type " << int{types[c]};
    }
  }
}

TEST(Checksum, Crc32cStandardVector) {
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c::Extend(crc32c::Value("1234", 4), "56789", 5), 0xe3069283u);
  EXPECT_EQ(crc32c::Unmask(crc32c::Mask(0x12345678u)), 0x12345678u);
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8a9136aau);
}

TEST(Checksum, RocksDbSchemaCrc32c) {
  ExpectSchema(ChecksumType::kCRC32c, "D8EA82A2",
               {"D28F2549", "052B2843", "46F8F711", "583F0355", "2F9B0A57", "ECE7DA1D", "943EF0AB",
                "43A2EDB1", "00E53D63"});
}

TEST(Checksum, RocksDbSchemaXxHash) {
  ExpectSchema(ChecksumType::kxxHash, "055DCC02",
               {"3EB065CF", "31F79238", "320D2E00", "4A2E5FB0", "0BD9F652", "B4107E50", "20F4D4BA",
                "8F1A1F99", "A191A338"});
}

TEST(Checksum, RocksDbSchemaXxHash64) {
  ExpectSchema(ChecksumType::kxxHash64, "99E9D851",
               {"682705DB", "30E7211B", "B7BB58E8", "B74655EF", "B6C8BBBE", "AED9E3B4", "0D4999FE",
                "F5932423", "6B31BAB1"});
}

TEST(Checksum, RocksDbSchemaXxh3) {
  ExpectSchema(ChecksumType::kXXH3, "00000000",
               {"C294D338", "1B174353", "2D0E20C8", "B37FB5E6", "6AFC258D", "5CE54616", "FA2D482E",
                "23AED845", "15B7BBDE"});
}

TEST(Checksum, NoChecksumIsZero) {
  Inputs in;
  EXPECT_EQ(ChecksumHex(in.b2, kZstd, ChecksumType::kNoChecksum), "00000000");
}

TEST(Checksum, ContextModifier) {
  EXPECT_EQ(ChecksumModifierForContext(0, 12345), 0u);
  const uint32_t base = 123456789;
  EXPECT_EQ(ChecksumModifierForContext(base, 0), base);
  EXPECT_EQ(ChecksumModifierForContext(base, 7), base ^ 7u);
  // Upper and lower halves of the offset are added.
  const uint64_t offset = (uint64_t{3} << 32) | 5;
  EXPECT_EQ(ChecksumModifierForContext(base, offset), base ^ 8u);
  EXPECT_EQ(ComputeBlockChecksum(ChecksumType::kCRC32c, "abc", base, 99),
            ComputeBuiltinChecksum(ChecksumType::kCRC32c, "abc", 3) + (base ^ 99u));
}

TEST(Checksum, KnownTypes) {
  for (uint32_t t = 0; t <= 4; ++t) EXPECT_TRUE(IsKnownChecksumType(t));
  EXPECT_FALSE(IsKnownChecksumType(5));
  EXPECT_FALSE(IsKnownChecksumType(255));
}

}  // namespace
}  // namespace rockpool::sst
