// zlib and zstd through the legacy face's interposers from several threads
// at once (no RocksDB): every output still byte-identical, contexts reused,
// none left in use. Tagged "concurrency" (TSan) like the other interpose
// tests.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb_plugin/legacy/runtime.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

using ::rockpool::testing::SemiCompressible;

TEST_F(InterposeTest, ManyThreads) {
  const std::string in = SemiCompressible(20000, 21);
  Configure(Off());
  const std::vector<DeflateParams> params = {{6, -14, 8, 0}, {1, -14, 8, 0}, {9, 31, 8, 0}};
  std::vector<std::string> want;
  for (const auto& p : params) want.push_back(DeflateOnce(in, p).bytes);
  ZSTD_CCtx* real = ZSTD_createCCtx();
  const std::string want_zstd = ZstdRocksDBStyle(real, in, 3);
  ZSTD_freeCCtx(real);
  Configure(On());
  // Each codec binds its copy at its first pooled call, and a thread that
  // finds another thread binding forwards its call rather than wait
  // (codec_routes.h). Bound here first, so the counts below see only the
  // threads' steady state: under ThreadSanitizer a bind is slow enough that
  // the other threads forwarded dozens of leases, pooled by none.
  for (const auto& p : params) {
    int rc;
    if (InflateAll(DeflateOnce(in, p).bytes, p.window_bits, 8192, &rc) != in) ADD_FAILURE();
  }
  ZSTD_freeCCtx(ZSTD_createCCtx());
  const CompressionPoolsStats before = Stats();
  ASSERT_GT(before.deflate.created, 0u) << "zlib not pooled: the counts below would mean nothing";
  ASSERT_GT(before.zstd_compress.created, 0u) << "zstd not pooled";
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        const size_t k = static_cast<size_t>(t + i) % params.size();
        const DeflateResult r = DeflateOnce(in, params[k]);
        if (r.bytes != want[k] || r.end_rc != Z_OK) ++failures;
        int rc;
        if (InflateAll(r.bytes, params[k].window_bits, 8192, &rc) != in) ++failures;
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        if (ZstdRocksDBStyle(cctx, in, 3) != want_zstd) ++failures;
        ZSTD_freeCCtx(cctx);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  const CompressionPoolsStats s = Stats();
  EXPECT_LE(s.deflate.created - before.deflate.created, 4u * params.size());
  EXPECT_GT(s.deflate.reused - before.deflate.reused, 200u);
  EXPECT_LE(s.zstd_compress.created - before.zstd_compress.created, 4u);
  EXPECT_GT(s.zstd_compress.reused - before.zstd_compress.reused, 200u);
  EXPECT_EQ(s.Total().in_use, 0u);
}

}  // namespace
}  // namespace rockpool::legacy
