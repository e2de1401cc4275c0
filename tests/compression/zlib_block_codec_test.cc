#include "compression/zlib_block_codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "compression/coding.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

// Stock RocksDB's Zlib_Compress: a brand-new z_stream per block.
std::string StockCompress(std::string_view in, const ZlibBlockOptions& o) {
  std::string out;
  PutVarint32(&out, static_cast<uint32_t>(in.size()));
  const size_t header = out.size();
  z_stream s{};
  const int level = o.level == kRocksDbDefaultLevel ? Z_DEFAULT_COMPRESSION : o.level;
  EXPECT_EQ(deflateInit2(&s, level, Z_DEFLATED, o.window_bits, 8, o.strategy), Z_OK);
  if (!o.dictionary.empty()) {
    deflateSetDictionary(&s, reinterpret_cast<const Bytef*>(o.dictionary.data()),
                         static_cast<uInt>(o.dictionary.size()));
  }
  const uLong bound = deflateBound(&s, in.size());
  out.resize(header + bound);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data() + header);
  s.avail_out = static_cast<uInt>(bound);
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - s.avail_out);
  deflateEnd(&s);
  return out;
}

class ZlibBlockCodecTest : public ::testing::Test {
 protected:
  CompressionPools pools_;
  BlockCodecs codecs_{&pools_, size_t{4} << 20};
};

TEST_F(ZlibBlockCodecTest, RoundTripsEverySizeLevelWindowAndStrategyLikeStock) {
  const size_t sizes[] = {0, 1, 4096, 16384, size_t{1} << 20};
  struct Case {
    int level, window_bits, strategy;
  };
  const Case cases[] = {{kRocksDbDefaultLevel, -14, Z_DEFAULT_STRATEGY},
                        {1, -14, Z_DEFAULT_STRATEGY},
                        {6, -15, Z_DEFAULT_STRATEGY},
                        {9, -12, Z_FILTERED},
                        {4, -9, Z_HUFFMAN_ONLY},
                        {5, -14, Z_RLE},
                        {-1, -9, Z_FIXED}};
  for (size_t size : sizes) {
    for (bool compressible : {true, false}) {
      const std::string input =
          compressible ? SemiCompressible(size, size) : Incompressible(size, size);
      for (const Case& c : cases) {
        ZlibBlockOptions o;
        o.level = c.level;
        o.window_bits = c.window_bits;
        o.strategy = c.strategy;
        std::string block, back;
        ASSERT_TRUE(codecs_.zlib().Compress(input, o, &block).ok());
        EXPECT_EQ(block, StockCompress(input, o))
            << size << " level " << c.level << " wb " << c.window_bits;
        ASSERT_TRUE(codecs_.zlib().Decompress(block, {}, &back).ok());
        EXPECT_EQ(back, input);
      }
    }
  }
  // One stream per distinct (level, window, strategy); one inflate stream.
  EXPECT_EQ(pools_.deflate().stats().created, 7u);
  EXPECT_EQ(pools_.inflate().stats().created, 1u);
  // The default level and level 6 produce identical output and share streams.
  ZlibBlockOptions o6;
  o6.level = 6;
  std::string a, b;
  ASSERT_TRUE(codecs_.zlib().Compress("abc", o6, &a).ok());
  ASSERT_TRUE(codecs_.zlib().Compress("abc", ZlibBlockOptions{}, &b).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(pools_.deflate().stats().created, 7u);
}

TEST_F(ZlibBlockCodecTest, DictionaryIsAppliedOnEveryLeaseAndMatchesStock) {
  const std::string dict = SemiCompressible(4096, 9);
  for (int i = 0; i < 10; ++i) {
    const std::string input = SemiCompressible(4096, 50 + i);
    ZlibBlockOptions o;
    o.dictionary = i % 2 == 0 ? std::string_view(dict) : std::string_view();
    std::string block, back;
    ASSERT_TRUE(codecs_.zlib().Compress(input, o, &block).ok());
    EXPECT_EQ(block, StockCompress(input, o)) << i;
    ASSERT_TRUE(codecs_.zlib().Decompress(block, o.dictionary, &back).ok());
    EXPECT_EQ(back, input);
  }
}

TEST_F(ZlibBlockCodecTest, GzipAndZlibFramedStreamsRoundTripThroughThePool) {
  const std::string input = SemiCompressible(100000, 3);
  for (int wb : {8, 9, 12, 15, 25, 28, 31}) {
    std::string framed, back;
    ASSERT_TRUE(codecs_.zlib().CompressStream(input, 6, wb, &framed).ok()) << wb;
    if (wb >= 24) {
      EXPECT_EQ(static_cast<uint8_t>(framed[0]), 0x1f);  // gzip magic
      EXPECT_EQ(static_cast<uint8_t>(framed[1]), 0x8b);
    }
    // Decode with the matching window and with auto-detection (40..47).
    ASSERT_TRUE(codecs_.zlib().DecompressStream(framed, wb >= 24 ? 31 : 15, 1 << 20, &back).ok());
    EXPECT_EQ(back, input);
    ASSERT_TRUE(codecs_.zlib().DecompressStream(framed, 47, 1 << 20, &back).ok());
    EXPECT_EQ(back, input);
    // Reference: zlib's one-shot uncompress on zlib framing.
    if (wb < 24) {
      std::string ref(input.size(), '\0');
      uLongf n = ref.size();
      ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(ref.data()), &n,
                           reinterpret_cast<const Bytef*>(framed.data()), framed.size()),
                Z_OK);
      EXPECT_EQ(ref, input);
    }
  }
  // Limits and bad window bits.
  std::string framed, back;
  ASSERT_TRUE(codecs_.zlib().CompressStream(input, 6, 31, &framed).ok());
  EXPECT_EQ(codecs_.zlib().DecompressStream(framed, 31, 1000, &back).code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(codecs_.zlib().DecompressStream(framed.substr(0, 100), 31, 1 << 20, &back).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(codecs_.zlib().CompressStream(input, 6, -14, &framed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(codecs_.zlib().CompressStream(input, 6, 20, &framed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(codecs_.zlib().CompressStream(input, 6, 24, &framed).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ZlibBlockCodecTest, BadOptionsAreInvalidArgument) {
  std::string out;
  ZlibBlockOptions o;
  o.level = 12;
  EXPECT_EQ(codecs_.zlib().Compress("x", o, &out).code(), absl::StatusCode::kInvalidArgument);
  o.level = 6;
  for (int wb : {-16, -8, 0}) {
    o.window_bits = wb;
    absl::Status s = codecs_.zlib().Compress("x", o, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << wb;
    EXPECT_NE(s.message().find("window_bits"), std::string::npos) << s;
  }
  o.window_bits = -14;
  o.strategy = 9;
  EXPECT_EQ(codecs_.zlib().Compress("x", o, &out).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ZlibBlockCodecTest, HostileInputIsAnErrorNotACrash) {
  const std::string input = SemiCompressible(10000, 7);
  std::string block, out;
  ASSERT_TRUE(codecs_.zlib().Compress(input, ZlibBlockOptions{}, &block).ok());

  std::string huge;
  PutVarint32(&huge, 100u << 20);
  huge += block.substr(2);
  EXPECT_EQ(codecs_.zlib().Decompress(huge, {}, &out).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(codecs_.zlib().Decompress(block.substr(0, block.size() - 10), {}, &out).code(),
            absl::StatusCode::kDataLoss);
  absl::Status s = codecs_.zlib().Decompress(block + "garbage!", {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("trailing"), std::string::npos) << s;
  for (uint32_t declared : {9999u, 10001u}) {
    std::string wrong;
    PutVarint32(&wrong, declared);
    wrong += block.substr(2);
    EXPECT_EQ(codecs_.zlib().Decompress(wrong, {}, &out).code(), absl::StatusCode::kDataLoss)
        << declared;
  }
  EXPECT_FALSE(codecs_.zlib().Decompress("", {}, &out).ok());
  std::mt19937 rng(2);
  for (int i = 0; i < 200; ++i) {
    std::string junk;
    PutVarint32(&junk, 1 + rng() % 5000);
    junk += Incompressible(rng() % 300, i);
    EXPECT_FALSE(codecs_.zlib().Decompress(junk, {}, &out).ok());
  }
  // The pool stays healthy after all that.
  std::string back;
  ASSERT_TRUE(codecs_.zlib().Decompress(block, {}, &back).ok());
  EXPECT_EQ(back, input);
}

}  // namespace
}  // namespace rockpool

namespace rockpool {
namespace {

// A pooled inflate stream that auto-detected a small zlib window (windowBits
// 0 learns it from the header) must not keep it for the next stream.
TEST(InflatePolicyTest, ResetForgetsAWindowLearnedFromTheHeader) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  const std::string input = testing::SemiCompressible(200000, 5);
  std::string small_window, big_window, back;
  ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, 9, &small_window).ok());
  ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, 15, &big_window).ok());
  InflatePool& pool = pools.inflate();
  for (const std::string* stream : {&small_window, &big_window, &small_window}) {
    auto lease = pool.Acquire(InflateKey{0});  // 0: window from the header
    ASSERT_TRUE(lease.ok());
    ASSERT_TRUE(
        ZlibBlockCodec::DecompressStreamWith((*lease)->get(), *stream, 1 << 20, &back).ok());
    EXPECT_EQ(back, input);
  }
  EXPECT_EQ(pool.stats().created, 1u);
}

// A pooled stream allocates through its own allocator (zlib's items x size,
// every byte counted), and the stream alone leads back to its context, of
// the right kind only: the legacy face finds a moved state this way.
TEST(ZlibStreamTest, CountsItsBytesAndIsFoundFromTheStreamAlone) {
  CompressionPools pools;
  auto deflate = pools.deflate().Acquire(DeflateKey{});
  auto inflate = pools.inflate().Acquire(InflateKey{});
  ASSERT_TRUE(deflate.ok());
  ASSERT_TRUE(inflate.ok());
  DeflateContext& d = **deflate;
  InflateContext& i = **inflate;
  EXPECT_GT(d.allocator().bytes_live(), 0);
  EXPECT_EQ(d.allocator().bytes_live(), pools.deflate().stats().library.bytes_live);
  EXPECT_EQ(i.allocator().bytes_live(), pools.inflate().stats().library.bytes_live);
  EXPECT_EQ(DeflateContext::FromStream(*d.get()), &d);
  EXPECT_EQ(InflateContext::FromStream(*i.get()), &i);
  EXPECT_EQ(InflateContext::FromStream(*d.get()), nullptr);
  EXPECT_EQ(DeflateContext::FromStream(*i.get()), nullptr);
  z_stream foreign{};
  EXPECT_EQ(DeflateContext::FromStream(foreign), nullptr);
}

// The into-buffer calls the native face uses: the same bytes as the string
// form's payload, FailedPrecondition when the caller's buffer is too small,
// DataLoss for a payload that does not inflate to the declared size.
TEST_F(ZlibBlockCodecTest, IntoBufferCallsMatchTheStringFormAndFailCleanly) {
  const std::string input = SemiCompressible(8192, 3);
  ZlibBlockOptions o;
  std::string block;
  ASSERT_TRUE(codecs_.zlib().Compress(input, o, &block).ok());
  absl::StatusOr<BlockPrefix> prefix = ParseBlockPrefix(block, 1 << 20);
  ASSERT_TRUE(prefix.ok());

  auto deflate = pools_.deflate().Acquire(DeflateKeyFor(o));
  ASSERT_TRUE(deflate.ok());
  std::string payload(block.size(), '\0');
  absl::StatusOr<size_t> n =
      ZlibBlockCodec::DeflateInto((*deflate)->get(), input, {}, payload.data(), payload.size());
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(std::string_view(payload.data(), *n), prefix->payload);
  deflate->reset();

  auto small = pools_.deflate().Acquire(DeflateKeyFor(o));
  ASSERT_TRUE(small.ok());
  const std::string noise = Incompressible(4096, 4);
  EXPECT_EQ(
      ZlibBlockCodec::DeflateInto((*small)->get(), noise, {}, payload.data(), 100).status().code(),
      absl::StatusCode::kFailedPrecondition);

  auto inflate = pools_.inflate().Acquire(InflateKey{-15});
  ASSERT_TRUE(inflate.ok());
  std::string back(input.size(), '\0');
  ASSERT_TRUE(
      ZlibBlockCodec::InflateInto((*inflate)->get(), prefix->payload, {}, back.data(), back.size())
          .ok());
  EXPECT_EQ(back, input);
  inflate->reset();
  auto again = pools_.inflate().Acquire(InflateKey{-15});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ZlibBlockCodec::InflateInto((*again)->get(), prefix->payload, {}, back.data(),
                                        back.size() + 1)
                .code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace rockpool
