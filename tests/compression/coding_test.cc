#include "compression/coding.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace rockpool {
namespace {

TEST(Coding, FixedRoundTrip) {
  std::string s;
  PutFixed16(&s, 0xbeef);
  PutFixed32(&s, 0xdeadbeef);
  PutFixed64(&s, 0x0123456789abcdefull);
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(DecodeFixed16(s.data()), 0xbeef);
  EXPECT_EQ(DecodeFixed32(s.data() + 2), 0xdeadbeefu);
  EXPECT_EQ(DecodeFixed64(s.data() + 6), 0x0123456789abcdefull);
  EXPECT_EQ(static_cast<unsigned char>(s[2]), 0xef);  // little endian
}

TEST(Coding, Varint64RoundTrip) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                     uint64_t{1} << 35, std::numeric_limits<uint64_t>::max()}) {
    std::string s;
    PutVarint64(&s, v);
    s += "tail";
    std::string_view in = s;
    uint64_t out = 0;
    ASSERT_TRUE(GetVarint64(&in, &out)) << v;
    EXPECT_EQ(out, v);
    EXPECT_EQ(in, "tail");
  }
}

TEST(Coding, Varint32RejectsOverflowAndTruncation) {
  std::string max;
  PutVarint32(&max, std::numeric_limits<uint32_t>::max());
  std::string_view in = max;
  uint32_t v = 0;
  ASSERT_TRUE(GetVarint32(&in, &v));
  EXPECT_EQ(v, std::numeric_limits<uint32_t>::max());

  std::string too_big;
  PutVarint64(&too_big, uint64_t{1} << 32);
  in = too_big;
  EXPECT_FALSE(GetVarint32(&in, &v));
  EXPECT_EQ(in.size(), too_big.size());  // unchanged on failure

  const std::string truncated = "\x80\x80";
  in = truncated;
  EXPECT_FALSE(GetVarint32(&in, &v));
  const std::string overlong = "\x80\x80\x80\x80\x80\x00";
  in = overlong;
  EXPECT_FALSE(GetVarint32(&in, &v));
  std::string_view empty;
  EXPECT_FALSE(GetVarint32(&empty, &v));
}

TEST(Coding, Varint64RejectsOverlong) {
  const std::string eleven(10, '\x80');
  std::string_view in = eleven;
  uint64_t v = 0;
  EXPECT_FALSE(GetVarint64(&in, &v));
  const std::string tenth_byte_too_big = std::string(9, '\xff') + "\x02";
  in = tenth_byte_too_big;
  EXPECT_FALSE(GetVarint64(&in, &v));
}

TEST(Coding, VarsignedZigzag) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-1000}, int64_t{123456789},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    std::string s;
    PutVarsignedint64(&s, v);
    std::string_view in = s;
    int64_t out = 0;
    ASSERT_TRUE(GetVarsignedint64(&in, &out));
    EXPECT_EQ(out, v);
  }
  std::string s;
  PutVarsignedint64(&s, -1);
  EXPECT_EQ(s, "\x01");  // zigzag(-1) == 1, as RocksDB's EncodeSignedInt64
}

TEST(Coding, LengthPrefixed) {
  std::string s;
  PutLengthPrefixed(&s, "hello");
  std::string_view in = s, out;
  ASSERT_TRUE(GetLengthPrefixed(&in, &out));
  EXPECT_EQ(out, "hello");
  std::string_view short_input = std::string_view(s).substr(0, 3);
  EXPECT_FALSE(GetLengthPrefixed(&short_input, &out));
}

}  // namespace
}  // namespace rockpool
