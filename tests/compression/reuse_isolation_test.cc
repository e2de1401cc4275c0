// A context that served other users must produce exactly what a brand-new
// context produces: random sequences of (level, window, strategy,
// dictionary, leftover parameters) on pooled contexts vs fresh ones.
#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zlib.h>
#include <zstd.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compression/block_codecs.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::SemiCompressible;

TEST(ReuseIsolationTest, ZstdLeasedContextEqualsFreshContextForRandomSequences) {
  CompressionPools pools(PoolOptions{.max_retained_per_key = 1});
  std::vector<std::shared_ptr<const ZstdDictionary>> dicts;
  for (int i = 0; i < 3; ++i)
    dicts.push_back(*ZstdDictionary::Create(SemiCompressible(2048 << i, i), 1 + 4 * i));
  std::mt19937 rng(12345);
  for (int op = 0; op < 300; ++op) {
    const int level = static_cast<int>(rng() % 23) - 3;
    const ZstdDictionary* dict = rng() % 3 == 0 ? dicts[rng() % 3].get() : nullptr;
    const std::string input = SemiCompressible(100 + rng() % 20000, op);
    auto lease = pools.zstd_compress().Acquire(ZstdKey{});
    ASSERT_TRUE(lease.ok());
    std::string pooled;
    ASSERT_TRUE(ZstdBlockCodec::CompressWith((*lease)->get(), input, level, dict, &pooled).ok());
    // Leave sticky state behind for the next user: parameters and a dictionary.
    ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_windowLog, 12);
    if (dict != nullptr) ZSTD_CCtx_refCDict((*lease)->get(), dict->cdict());
    lease->reset();

    ZSTD_CCtx* fresh = ZSTD_createCCtx();
    std::string expected;
    ASSERT_TRUE(ZstdBlockCodec::CompressWith(fresh, input, level, dict, &expected).ok());
    ZSTD_freeCCtx(fresh);
    ASSERT_EQ(pooled, expected) << "op " << op << " level " << level;
  }
  EXPECT_EQ(pools.zstd_compress().stats().created, 1u);
}

TEST(ReuseIsolationTest, ZstdStreamingApiAfterReturnSeesDefaultParameters) {
  CompressionPools pools;
  const std::string input = SemiCompressible(50000, 1);
  {
    auto lease = pools.zstd_compress().Acquire(ZstdKey{});
    ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter((*lease)->get(), ZSTD_c_checksumFlag, 1);
  }
  auto lease = pools.zstd_compress().Acquire(ZstdKey{});
  EXPECT_EQ(pools.zstd_compress().stats().reused, 1u);
  std::string pooled(ZSTD_compressBound(input.size()), '\0');
  const size_t n =
      ZSTD_compress2((*lease)->get(), pooled.data(), pooled.size(), input.data(), input.size());
  ZSTD_CCtx* fresh = ZSTD_createCCtx();
  std::string expected(ZSTD_compressBound(input.size()), '\0');
  const size_t m =
      ZSTD_compress2(fresh, expected.data(), expected.size(), input.data(), input.size());
  ZSTD_freeCCtx(fresh);
  ASSERT_FALSE(ZSTD_isError(n));
  pooled.resize(n);
  expected.resize(m);
  EXPECT_EQ(pooled, expected);
}

TEST(ReuseIsolationTest, ZlibPooledStreamsEqualFreshStreamsForRandomSequences) {
  CompressionPools pools(PoolOptions{.max_retained_per_key = 2});
  BlockCodecs codecs(&pools);
  const std::string dict = SemiCompressible(4096, 77);
  std::mt19937 rng(777);
  for (int op = 0; op < 300; ++op) {
    ZlibBlockOptions o;
    o.level = static_cast<int>(rng() % 11) - 1;
    o.window_bits = -9 - static_cast<int>(rng() % 7);
    o.strategy = static_cast<int>(rng() % 5);
    o.dictionary = rng() % 2 ? std::string_view(dict) : std::string_view();
    const std::string input = SemiCompressible(rng() % 20000, op);
    std::string pooled;
    ASSERT_TRUE(codecs.zlib().Compress(input, o, &pooled).ok());

    BlockCodecs fresh_codecs(new CompressionPools(PoolOptions{.max_retained_per_key = 0}));
    std::string expected;
    ASSERT_TRUE(fresh_codecs.zlib().Compress(input, o, &expected).ok());
    delete fresh_codecs.pools();
    ASSERT_EQ(pooled, expected) << "op " << op << " level " << o.level << " wb " << o.window_bits;

    std::string back;
    ASSERT_TRUE(codecs.zlib().Decompress(pooled, o.dictionary, &back).ok());
    ASSERT_EQ(back, input);
  }
  EXPECT_GT(pools.deflate().stats().reused, 0u);
  EXPECT_GT(pools.inflate().stats().reused, 250u);
}

}  // namespace
}  // namespace rockpool
