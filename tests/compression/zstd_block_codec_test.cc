#include "compression/zstd_block_codec.h"

#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <random>
#include <string>

#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "compression/coding.h"
#include "compression/zstd_level.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

// Stock RocksDB's ZSTD_Compress on a brand-new context (see header).
std::string StockCompress(std::string_view in, int level, const ZstdDictionary* dict) {
  std::string out;
  PutVarint32(&out, static_cast<uint32_t>(in.size()));
  const size_t header = out.size();
  ZSTD_CCtx* fresh = ZSTD_createCCtx();
  const size_t bound = ZSTD_compressBound(in.size());
  out.resize(header + bound);
  const size_t n = dict != nullptr
                       ? ZSTD_compress_usingCDict(fresh, out.data() + header, bound, in.data(),
                                                  in.size(), dict->cdict())
                       : ZSTD_compress_usingDict(
                             fresh, out.data() + header, bound, in.data(), in.size(), nullptr, 0,
                             ZstdLevelFromRocksDb(level, RocksDbZstdLevels::kV7));
  ZSTD_freeCCtx(fresh);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(header + n);
  return out;
}

class ZstdBlockCodecTest : public ::testing::Test {
 protected:
  CompressionPools pools_;
  BlockCodecs codecs_{&pools_, size_t{4} << 20};
};

TEST_F(ZstdBlockCodecTest, RoundTripsEverySizeAndLevelByteIdenticalToAFreshContext) {
  const size_t sizes[] = {0, 1, 4096, 16384, size_t{1} << 20};
  const int levels[] = {-5, 1, 3, 9, 19, kRocksDbDefaultLevel};
  for (size_t size : sizes) {
    for (bool compressible : {true, false}) {
      const std::string input =
          compressible ? SemiCompressible(size, size) : Incompressible(size, size);
      for (int level : levels) {
        std::string block, back;
        ASSERT_TRUE(codecs_.zstd().Compress(input, level, nullptr, &block).ok());
        EXPECT_EQ(block, StockCompress(input, level, nullptr)) << size << " level " << level;
        ASSERT_TRUE(codecs_.zstd().Decompress(block, nullptr, &back).ok());
        EXPECT_EQ(back, input);
      }
    }
  }
  // One compress and one decompress context served every call.
  EXPECT_EQ(pools_.zstd_compress().stats().created, 1u);
  EXPECT_EQ(pools_.zstd_decompress().stats().created, 1u);
}

TEST_F(ZstdBlockCodecTest, CompressionContextsAreSingleThreaded) {
  auto lease = pools_.zstd_compress().Acquire(ZstdKey{});
  ASSERT_TRUE(lease.ok());
  int workers = -1;
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_getParameter((*lease)->get(), ZSTD_c_nbWorkers, &workers)));
  EXPECT_EQ(workers, 0);
  // A user that turns workers on gets them reset on return.
  ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_nbWorkers, 2);
  lease->reset();
  auto again = pools_.zstd_compress().Acquire(ZstdKey{});
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_getParameter((*again)->get(), ZSTD_c_nbWorkers, &workers)));
  EXPECT_EQ(workers, 0);
}

TEST_F(ZstdBlockCodecTest, DictionaryRoundTripMatchesStockAndIsDigestedOnce) {
  const std::string dict_bytes = SemiCompressible(8192, 42);
  auto dict = ZstdDictionary::Create(dict_bytes, 5);
  ASSERT_TRUE(dict.ok());
  EXPECT_GT((*dict)->digested_bytes(), 0u);
  for (int i = 0; i < 20; ++i) {
    const std::string input = SemiCompressible(4096, 100 + i);
    std::string block, back;
    ASSERT_TRUE(codecs_.zstd().Compress(input, 5, dict->get(), &block).ok());
    EXPECT_EQ(block, StockCompress(input, 5, dict->get()));
    ASSERT_TRUE(codecs_.zstd().Decompress(block, dict->get(), &back).ok());
    EXPECT_EQ(back, input);
    // Without the dictionary the block must not decode.
    EXPECT_FALSE(codecs_.zstd().Decompress(block, nullptr, &back).ok());
  }
}

TEST_F(ZstdBlockCodecTest, HostileInputIsAnErrorNotACrash) {
  const std::string input = SemiCompressible(10000, 7);
  std::string block, out;
  ASSERT_TRUE(codecs_.zstd().Compress(input, 3, nullptr, &block).ok());

  // Size prefix over the configured limit: rejected before allocating.
  std::string huge;
  PutVarint32(&huge, 100u << 20);
  huge += block.substr(2);
  absl::Status s = codecs_.zstd().Decompress(huge, nullptr, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange) << s;
  EXPECT_NE(s.message().find("limit"), std::string::npos);

  // Truncated payload.
  s = codecs_.zstd().Decompress(block.substr(0, block.size() - 10), nullptr, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  // Trailing garbage.
  s = codecs_.zstd().Decompress(block + "garbage!", nullptr, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  // Size prefix smaller and larger than the real size.
  for (uint32_t declared : {9999u, 10001u}) {
    std::string wrong;
    PutVarint32(&wrong, declared);
    wrong += block.substr(2);  // 10000 encodes in 2 bytes
    s = codecs_.zstd().Decompress(wrong, nullptr, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << declared << ": " << s;
  }

  // Truncated varint and empty block.
  EXPECT_FALSE(codecs_.zstd().Decompress("\xff", nullptr, &out).ok());
  EXPECT_FALSE(codecs_.zstd().Decompress("", nullptr, &out).ok());

  // Random bytes after a valid prefix.
  std::mt19937 rng(1);
  for (int i = 0; i < 200; ++i) {
    std::string junk;
    PutVarint32(&junk, 1 + rng() % 5000);
    junk += Incompressible(rng() % 300, i);
    EXPECT_FALSE(codecs_.zstd().Decompress(junk, nullptr, &out).ok());
  }
}

// RocksDB >= 10.4's sequence through the into-buffer calls: the bytes of a
// fresh context running the built-in's calls (sticky level and checksum,
// ZSTD_compress2), into a buffer whose size encodes the acceptable ratio.
TEST_F(ZstdBlockCodecTest, Compress2IntoMatchesTheBuiltInSequenceAndRejectsWhatDoesNotFit) {
  const std::string input = SemiCompressible(16384, 7);
  std::string expected(ZSTD_compressBound(input.size()), '\0');
  ZSTD_CCtx* fresh = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(fresh, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(fresh, ZSTD_c_checksumFlag, 1);
  expected.resize(
      ZSTD_compress2(fresh, expected.data(), expected.size(), input.data(), input.size()));
  ZSTD_freeCCtx(fresh);

  auto lease = pools_.zstd_compress().Acquire(ZstdKey{});
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE(ZstdBlockCodec::PrepareForCompress2((*lease)->get(), 3, /*checksum=*/true).ok());
  std::string buffer(1 << 16, '\0');
  const std::optional<BlockPayloadArea> area =
      StartBlock(input.size(), buffer.data(), buffer.size());
  ASSERT_TRUE(area.has_value());
  EXPECT_EQ(area->prefix_size, 3u);  // 16384 as a varint32
  absl::StatusOr<size_t> n = ZstdBlockCodec::Compress2Into((*lease)->get(), input, nullptr, {},
                                                           area->data, area->capacity);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(std::string(area->data, *n), expected);
  std::string back(input.size(), '\0');
  auto dctx = pools_.zstd_decompress().Acquire(ZstdKey{});
  ASSERT_TRUE(dctx.ok());
  EXPECT_TRUE(ZstdBlockCodec::DecompressInto((*dctx)->get(), std::string_view(area->data, *n),
                                             nullptr, back.data(), back.size())
                  .ok());
  EXPECT_EQ(back, input);
  // A wrong declared size is DataLoss, not a crash.
  EXPECT_EQ(ZstdBlockCodec::DecompressInto((*dctx)->get(), std::string_view(area->data, *n),
                                           nullptr, back.data(), back.size() - 1)
                .code(),
            absl::StatusCode::kDataLoss);
  // Output over the caller's buffer: FailedPrecondition (RocksDB: rejected).
  const std::string noise = Incompressible(4096, 8);
  EXPECT_EQ(ZstdBlockCodec::Compress2Into((*lease)->get(), noise, nullptr, {}, area->data, 1000)
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
  // No room beyond the longest prefix: no payload area at all.
  EXPECT_FALSE(StartBlock(10, buffer.data(), kMaxBlockPrefixSize).has_value());
}

}  // namespace
}  // namespace rockpool
