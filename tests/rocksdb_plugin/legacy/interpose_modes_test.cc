// The legacy face's modes and process-wide behaviour, through its
// interposers called directly (no RocksDB): symbols bind to rockpool,
// everything forwards when pooling is off, the kill switch with contexts out,
// measure_stock, allocation failures, idle expiry, and other pools in the
// process left untouched.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "compression/block_codecs.h"
#include "compression/counting_allocator_testing.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

using ::rockpool::testing::SemiCompressible;

TEST_F(InterposeTest, SymbolsBindToRockpool) {
  const Interposition i = CheckInterposition();
  EXPECT_TRUE(i.zstd) << i.ToString();
  EXPECT_TRUE(i.zlib) << i.ToString();
  EXPECT_TRUE(i.zlib_layout) << i.ToString();
  EXPECT_TRUE(i.zstd_layout) << i.ToString();
}

TEST_F(InterposeTest, EverythingForwardsWhenOff) {
  Configure(Off());
  const CompressionPoolsStats before = Stats();
  const std::string in = SemiCompressible(4096, 1);
  for (int i = 0; i < 3; ++i) DeflateOnce(in, {6, -14, 8, Z_DEFAULT_STRATEGY});
  ZSTD_freeCCtx(ZSTD_createCCtx());
  ZSTD_freeDCtx(ZSTD_createDCtx());
  int rc;
  InflateAll(DeflateOnce(in, {6, -14, 8, 0}).bytes, -14, 1024, &rc);
  const PoolStats after = Stats().Total();
  EXPECT_EQ(after.created, before.Total().created);
  EXPECT_EQ(after.reused, before.Total().reused);

  RockpoolOptions zero_idle;
  zero_idle.max_idle_per_key = 0;  // also "off"
  Configure(zero_idle);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
  DeflateOnce(in, {6, -14, 8, 0});
  EXPECT_EQ(Stats().Total().created, before.Total().created);
}

TEST_F(InterposeTest, OtherPoolsInTheProcessAreUntouched) {
  auto own_pools =
      std::make_unique<CompressionPools>();  // 64-byte aligned: not on ASan's fake stack
  CompressionPools& own = *own_pools;
  BlockCodecs codecs(&own);
  const std::string in = SemiCompressible(10000, 14);
  const CompressionPoolsStats before = Stats();
  for (int i = 0; i < 3; ++i) {
    std::string block, back;
    ASSERT_TRUE(codecs.zlib().Compress(in, {}, &block).ok());
    ASSERT_TRUE(codecs.zlib().Decompress(block, {}, &back).ok());
    EXPECT_TRUE(Same(back, in));
    ASSERT_TRUE(codecs.zstd().Compress(in, 3, nullptr, &block).ok());
    ASSERT_TRUE(codecs.zstd().Decompress(block, nullptr, &back).ok());
    EXPECT_TRUE(Same(back, in));
  }
  EXPECT_EQ(own.stats().deflate.reused, 2u);
  EXPECT_EQ(Stats().Total().created, before.Total().created);
  EXPECT_EQ(Stats().Total().reused, before.Total().reused);
}

TEST_F(InterposeTest, KillSwitchWhileContextsAreOut) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  EXPECT_EQ(Outstanding().deflate, 1);
  EXPECT_EQ(Outstanding().zstd_compress, 1);
  Configure(Off());
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
  EXPECT_EQ(deflateEnd(&s), Z_OK);  // still recognised and given back...
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  EXPECT_EQ(Outstanding().deflate, 0);
  EXPECT_EQ(Stats().Total().idle, 0u);  // ...and freed, not kept
}

TEST_F(InterposeTest, MeasureStockCreatesOnePerCall) {
  RockpoolOptions measure;
  measure.measure_stock = true;
  Configure(measure);
  const std::string in = SemiCompressible(4000, 18);
  Configure(Off());
  const DeflateResult want = DeflateOnce(in, {6, -14, 8, 0});
  Configure(measure);
  const PoolStats before = Stats().deflate;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Same(DeflateOnce(in, {6, -14, 8, 0}).bytes, want.bytes));
  const PoolStats after = Stats().deflate;
  EXPECT_EQ(after.created - before.created, 5u);
  EXPECT_EQ(after.reused, before.reused);
  EXPECT_EQ(after.idle, 0u);
  // zlib 1.2.13, level 6, windowBits -14, memLevel 8: ~200 KB in 5 calls.
  EXPECT_EQ((after.library.allocations - before.library.allocations) % 5, 0u);
  EXPECT_GT(after.library.bytes_allocated - before.library.bytes_allocated, 5u * 150000);
}

TEST_F(InterposeTest, AllocationFailureFallsBackToTheLibrary) {
  TrimIdle();
  AllocationFaultInjectorForTesting::FailAll();
  const std::string in = SemiCompressible(4000, 19);
  const DeflateResult r = DeflateOnce(in, {5, -13, 7, 0});  // new key: must create
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  AllocationFaultInjectorForTesting::Disarm();
  EXPECT_EQ(r.end_rc, Z_OK);
  EXPECT_FALSE(r.bytes.empty());
  EXPECT_NE(cctx, nullptr);
  EXPECT_NE(dctx, nullptr);
  EXPECT_EQ(Outstanding().zstd_compress, 0);  // they came from libzstd
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  EXPECT_EQ(ZSTD_freeDCtx(dctx), 0u);
  Configure(Off());
  EXPECT_TRUE(Same(DeflateOnce(in, {5, -13, 7, 0}).bytes, r.bytes));
}

TEST_F(InterposeTest, IdleContextsAgeOut) {
  RockpoolOptions quick;
  quick.idle_seconds = 1;
  Configure(quick);
  DeflateOnce(SemiCompressible(1000, 20), {6, -14, 8, 0});
  EXPECT_EQ(Stats().deflate.idle, 1u);
  EXPECT_EQ(ReleaseExpired(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(ReleaseExpired(), 1u);
  EXPECT_EQ(Stats().deflate.idle, 0u);
}

}  // namespace
}  // namespace rockpool::legacy
