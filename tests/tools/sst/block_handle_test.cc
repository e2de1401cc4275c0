#include "tools/sst/block_handle.h"

#include <gtest/gtest.h>

#include <string>

#include "compression/coding.h"

namespace rockpool::sst {
namespace {

TEST(BlockHandleCoding, RoundTripAndOverflow) {
  std::string s;
  EncodeBlockHandle({12345, 678}, &s);
  std::string_view in = s;
  BlockHandle h;
  ASSERT_TRUE(DecodeBlockHandle(&in, &h));
  EXPECT_EQ(h, (BlockHandle{12345, 678}));
  uint64_t end = 0;
  EXPECT_TRUE(BlockEndWithTrailer(h, &end));
  EXPECT_EQ(end, 12345u + 678u + 5u);
  EXPECT_FALSE(BlockEndWithTrailer({~uint64_t{0} - 3, 0}, &end));
  EXPECT_FALSE(BlockEndWithTrailer({0, ~uint64_t{0}}, &end));
  std::string_view half = std::string_view(s).substr(0, 2);
  EXPECT_FALSE(DecodeBlockHandle(&half, &h));
}

}  // namespace
}  // namespace rockpool::sst
