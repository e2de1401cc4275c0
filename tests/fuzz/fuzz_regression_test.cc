// Named regression tests for bugs the fuzz targets found (their inputs are
// also under regressions/ and replayed by the *_replay_test targets).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "compression/block_codecs.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::SemiCompressible;

// zlib_stream: with max_output == SIZE_MAX ("no limit") the first output
// buffer was max_output + 1 == 0 bytes, and every valid stream failed as
// DataLoss "truncated".
TEST(FuzzRegressionTest, DecompressStreamWithoutALimitDecodesValidStreams) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  for (size_t size : {size_t{0}, size_t{300}, size_t{200000}}) {
    const std::string input = SemiCompressible(size, size);
    for (int wb : {15, 31}) {
      std::string framed, back;
      ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, wb, &framed).ok());
      const absl::Status s =
          codecs.zlib().DecompressStream(framed, 47, std::numeric_limits<size_t>::max(), &back);
      ASSERT_TRUE(s.ok()) << size << " wb " << wb << ": " << s;
      EXPECT_EQ(back, input);
    }
  }
}

// The limit is exact: a stream of n bytes decodes with max_output n and is
// OutOfRange with n - 1, whatever the growth steps of the output buffer.
TEST(FuzzRegressionTest, DecompressStreamOutputLimitIsExact) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  for (size_t size : {size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{100000}}) {
    const std::string input = SemiCompressible(size, size + 1);
    std::string framed, back;
    ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, 31, &framed).ok());
    ASSERT_TRUE(codecs.zlib().DecompressStream(framed, 31, size, &back).ok()) << size;
    EXPECT_EQ(back, input);
    EXPECT_EQ(codecs.zlib().DecompressStream(framed, 31, size - 1, &back).code(),
              absl::StatusCode::kOutOfRange)
        << size;
  }
}

}  // namespace
}  // namespace rockpool
