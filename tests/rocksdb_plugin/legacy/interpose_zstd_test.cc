// zstd through the legacy face's interposers, called directly (no RocksDB):
// compression and decompression contexts are byte-identical to libzstd's,
// reset and reused; multi-threaded contexts, other pools' contexts and
// contexts rockpool did not create are left alone; size classes keep a
// table builder's context from reallocating.
#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_getParameter, ZSTD_createCCtx_advanced
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "compression/zstd_contexts.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

using ::rockpool::testing::SemiCompressible;

TEST_F(InterposeTest, ZstdContextsAreIdenticalResetAndReused) {
  const std::string in = SemiCompressible(70000, 15);
  Configure(Off());
  std::vector<std::string> want;
  ZSTD_CCtx* real = ZSTD_createCCtx();
  for (int level : {1, 3, 9, 19}) want.push_back(ZstdRocksDBStyle(real, in, level));
  int default_level = -1;
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_getParameter(real, ZSTD_c_compressionLevel, &default_level)));
  std::string want2(ZSTD_compressBound(in.size()), '\0');
  want2.resize(ZSTD_compress2(real, want2.data(), want2.size(), in.data(), in.size()));
  ZSTD_freeCCtx(real);

  Configure(On());
  const PoolStats before = Stats().zstd_compress;
  ZSTD_CCtx* first = ZSTD_createCCtx();
  ASSERT_NE(first, nullptr);
  ZSTD_CCtx_setParameter(first, ZSTD_c_compressionLevel, 19);
  ZSTD_CCtx_setParameter(first, ZSTD_c_checksumFlag, 1);
  EXPECT_EQ(ZSTD_freeCCtx(first), 0u);
  for (int round = 0; round < 3; ++round) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ASSERT_NE(cctx, nullptr);
    int level = -1, checksum = -1, workers = -1;
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_compressionLevel, &level);
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_checksumFlag, &checksum);
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers);
    EXPECT_EQ(level, default_level);
    EXPECT_EQ(checksum, 0);
    EXPECT_EQ(workers, 0);
    std::string out(ZSTD_compressBound(in.size()), '\0');
    out.resize(ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size()));
    EXPECT_TRUE(Same(out, want2));
    size_t i = 0;
    for (int l : {1, 3, 9, 19}) EXPECT_EQ(ZstdRocksDBStyle(cctx, in, l), want[i++]) << l;
    EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  }
  const PoolStats after = Stats().zstd_compress;
  EXPECT_EQ(after.created - before.created, 1u);
  EXPECT_EQ(after.reused - before.reused, 3u);
  EXPECT_EQ(ZSTD_freeCCtx(nullptr), 0u);
}

TEST_F(InterposeTest, ZstdWorkersAreNeverPooled) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  const uint64_t discarded = DiscardedContexts();
  const size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 2);
  const std::string in = SemiCompressible(1 << 20, 16);
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ASSERT_FALSE(ZSTD_isError(n));
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  if (!ZSTD_isError(r)) {  // libzstd built with multithreading (Debian's is)
    EXPECT_EQ(DiscardedContexts(), discarded + 1);
  }
  ZSTD_CCtx* next = ZSTD_createCCtx();
  int workers = -1;
  ZSTD_CCtx_getParameter(next, ZSTD_c_nbWorkers, &workers);
  EXPECT_EQ(workers, 0);
  ZSTD_freeCCtx(next);
}

TEST_F(InterposeTest, AnotherPoolsContextIsNeverTakenForOurs) {
  // Found without a table, through the customMem inside the context: a
  // context of another pool (same allocator callbacks) must not be claimed.
  ZstdCompressPool other;
  absl::StatusOr<ZstdCompressPool::Lease> lease = other.Acquire(ZstdKey{});
  ASSERT_TRUE(lease.ok());
  ZstdCompressContext* context = other.Park(*std::move(lease));
  const size_t r = ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 0);
  EXPECT_FALSE(ZSTD_isError(r));
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 2)) &&
               context->discard_when_unparked())
      << "the runtime marked another pool's context";
  ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 0);
  const OutstandingLeases before = Outstanding();
  ZstdCompressPool::Lease back = other.Unpark(context);
  ASSERT_NE(back, nullptr);
  back.reset();
  EXPECT_EQ(other.stats().reused + other.stats().created, 1u);
  EXPECT_EQ(other.stats().idle, 1u);
  EXPECT_EQ(Outstanding().zstd_compress, before.zstd_compress);
}

TEST_F(InterposeTest, ZstdDecompressionContexts) {
  const std::string in = SemiCompressible(30000, 17);
  std::string frame(ZSTD_compressBound(in.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), in.data(), in.size(), 3));
  const PoolStats before = Stats().zstd_decompress;
  for (int i = 0; i < 3; ++i) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    ASSERT_NE(dctx, nullptr);
    std::string out(in.size(), '\0');
    EXPECT_EQ(ZSTD_decompress_usingDict(dctx, out.data(), out.size(), frame.data(), frame.size(),
                                        nullptr, 0),
              in.size());
    EXPECT_TRUE(Same(out, in));
    EXPECT_EQ(ZSTD_freeDCtx(dctx), 0u);
  }
  const PoolStats after = Stats().zstd_decompress;
  EXPECT_EQ(after.created - before.created, 1u);
  EXPECT_EQ(after.reused - before.reused, 2u);
  // Contexts rockpool did not create are forwarded.
  ZSTD_CCtx* foreign = ZSTD_createCCtx_advanced(ZSTD_defaultCMem);
  ZSTD_DCtx* foreign_d = ZSTD_createDCtx_advanced(ZSTD_defaultCMem);
  const OutstandingLeases out = Outstanding();
  EXPECT_EQ(ZSTD_freeCCtx(foreign), 0u);
  EXPECT_EQ(ZSTD_freeDCtx(foreign_d), 0u);
  EXPECT_EQ(Outstanding().zstd_compress, out.zstd_compress);
  EXPECT_EQ(Stats().zstd_decompress.reused, after.reused);
}

// The block-size mix of one SST file (DESIGN.md's probe): 300 blocks of
// 4 KiB, then one 40 KB index block, per "file" on a kept context. Without
// size classes zstd regrows the workspace for the big block and shrinks it
// 128 small blocks later: every file reallocates. With them (the default)
// the handle's calls run on per-class contexts that never resize, and the
// output is a fresh context's.
TEST_F(InterposeTest, ZstdBlockSizeMixDoesNotReallocate) {
  const std::string small = SemiCompressible(4096, 31);
  const std::string big = SemiCompressible(40000, 32);
  Configure(Off());
  ZSTD_CCtx* fresh = ZSTD_createCCtx();
  const std::string want_small = ZstdRocksDBStyle(fresh, small, 3);
  const std::string want_big = ZstdRocksDBStyle(fresh, big, 3);
  ZSTD_freeCCtx(fresh);
  auto file_bytes = [&](bool size_classes) {
    SetZstdSizeClassesForTesting(size_classes);
    std::vector<uint64_t> per_file;
    for (int file = 0; file < 4; ++file) {
      const uint64_t before = Stats().zstd_compress.library.bytes_allocated;
      ZSTD_CCtx* cctx = ZSTD_createCCtx();  // a table builder's context
      for (int block = 0; block < 300; ++block) {
        EXPECT_EQ(ZstdRocksDBStyle(cctx, small, 3), want_small);
      }
      EXPECT_EQ(ZstdRocksDBStyle(cctx, big, 3), want_big);
      ZSTD_freeCCtx(cctx);
      per_file.push_back(Stats().zstd_compress.library.bytes_allocated - before);
    }
    SetZstdSizeClassesForTesting(true);
    return per_file;
  };
  Configure(On());
  const std::vector<uint64_t> unrouted = file_bytes(false);
  TrimIdle();
  const std::vector<uint64_t> routed = file_bytes(true);
  Configure(Off());
  for (int file = 0; file < 4; ++file) {
    std::printf("file %d: zstd bytes without size classes %llu, with %llu\n", file,
                static_cast<unsigned long long>(unrouted[file]),
                static_cast<unsigned long long>(routed[file]));
  }
  // Without: every file after the first still reallocates.
  EXPECT_GT(unrouted[2], 0u);
  EXPECT_GT(unrouted[3], 0u);
  // With: only the first file creates contexts (handle + 2 classes).
  EXPECT_GT(routed[0], 0u);
  EXPECT_EQ(routed[1], 0u);
  EXPECT_EQ(routed[2], 0u);
  EXPECT_EQ(routed[3], 0u);
}

}  // namespace
}  // namespace rockpool::legacy
