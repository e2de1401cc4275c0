// Many threads leasing and returning real zstd and zlib contexts across
// keys. Run under TSan too (bazel test --config=tsan //tests/compression:pool_concurrency_test).
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compression/block_codecs.h"
#include "compression/context_pool_testing.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::SemiCompressible;

TEST(PoolConcurrencyTest, CountsBalanceAndNothingLeaks) {
  constexpr int kThreads = 8;
  constexpr int kOpsPerThread = 150;
  PoolOptions options;
  options.max_retained_per_key = 3;
  CompressionPools pools(options);
  BlockCodecs codecs(&pools);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < kOpsPerThread; ++i) {
        const std::string input = SemiCompressible(512 + rng() % 8192, t * 1000 + i);
        std::string block, back;
        bool ok;
        if (rng() % 2 == 0) {
          ok = codecs.zstd()
                   .Compress(input, 1 + static_cast<int>(rng() % 5), nullptr, &block)
                   .ok() &&
               codecs.zstd().Decompress(block, nullptr, &back).ok();
        } else {
          ZlibBlockOptions o;
          o.level = 1 + static_cast<int>(rng() % 3);  // 3 keys
          ok = codecs.zlib().Compress(input, o, &block).ok() &&
               codecs.zlib().Decompress(block, {}, &back).ok();
        }
        if (!ok || back != input) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);

  const PoolStats total = pools.stats().Total();
  EXPECT_EQ(total.in_use, 0u);
  EXPECT_EQ(total.created + total.reused, 2u * kThreads * kOpsPerThread);
  EXPECT_EQ(total.created, total.destroyed + total.idle);
  EXPECT_LE(pools.stats().deflate.idle, 3u * 3u);  // cap per key, 3 keys
  EXPECT_LE(pools.stats().zstd_compress.idle, 3u);
  EXPECT_LE(total.peak_in_use, 4u * kThreads);
  EXPECT_EQ(static_cast<uint64_t>(total.library.bytes_live), total.idle_bytes);
  // The records agree with the statistics once every thread has joined.
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pools.zstd_compress()).ok())
      << ContextPoolTesting::CheckQuiescent(pools.zstd_compress());
  EXPECT_TRUE(ContextPoolTesting::CheckQuiescent(pools.deflate()).ok())
      << ContextPoolTesting::CheckQuiescent(pools.deflate());

  pools.Trim();
  const PoolStats after = pools.stats().Total();
  EXPECT_EQ(after.idle, 0u);
  EXPECT_EQ(after.idle_bytes, 0u);
  EXPECT_EQ(after.library.bytes_live, 0) << "bytes still held after Trim()";
  EXPECT_EQ(after.created, after.destroyed);
}

}  // namespace
}  // namespace rockpool
