// The LOG report line: figures, stock estimate, format.
#include "rocksdb_plugin/report.h"

#include <gtest/gtest.h>

#include <string>

namespace rockpool {
namespace {

PoolStats Pool(uint64_t created, uint64_t reused, uint64_t bytes, uint64_t allocs) {
  PoolStats s;
  s.created = created;
  s.reused = reused;
  s.library.bytes_allocated = bytes;
  s.library.allocations = allocs;
  return s;
}

TEST(ReportTest, FiguresAndStockEstimate) {
  // 2 contexts created for 100 leases, 400,000 bytes in 10 calls: stock
  // would have created 100 contexts of 200,000 bytes in 5 calls each.
  const PoolFigures f = Figures(Pool(2, 98, 400000, 10), PoolStats{});
  EXPECT_EQ(f.leases, 100u);
  EXPECT_EQ(f.lib_bytes, 400000u);
  EXPECT_EQ(f.stock_est_bytes, 20000000u);
  EXPECT_EQ(f.stock_est_allocs, 500u);
  // Since an earlier snapshot: 10 more leases, all reused.
  const PoolFigures d = Figures(Pool(2, 108, 400000, 10), Pool(2, 98, 400000, 10));
  EXPECT_EQ(d.leases, 10u);
  EXPECT_EQ(d.created, 0u);
  EXPECT_EQ(d.lib_bytes, 0u);
  EXPECT_EQ(d.stock_est_bytes, 2000000u);
  EXPECT_EQ(Figures(PoolStats{}, PoolStats{}).stock_est_bytes, 0u);
}

TEST(ReportTest, Line) {
  CompressionPoolsStats now;
  now.deflate = Pool(1, 9, 200000, 5);
  now.inflate = Pool(1, 1, 20000, 2);
  now.deflate.idle = 1;
  now.deflate.idle_bytes = 200000;
  now.deflate.peak_retained_bytes = 400000;
  now.inflate.peak_retained_bytes = 20000;
  CompressionPoolsStats last;
  last.deflate = Pool(1, 4, 200000, 5);
  const std::string line =
      FormatReport("flush", 7, "default", RockpoolOptions::Mode::kPool, now, last, 3);
  EXPECT_EQ(line,
            "rockpool report: event=flush job=7 cf=default mode=pool"
            " | since_last: leases=7 created=1 reused=6 lib_bytes=20000 lib_allocs=2"
            " stock_est_bytes=1040000 stock_est_allocs=29"
            " | total: leases=12 created=2 reused=10 lib_bytes=220000 lib_allocs=7"
            " stock_est_bytes=2040000 stock_est_allocs=54"
            " | idle=1 idle_bytes=200000 peak_retained_bytes=420000 in_use=0 discarded=3"
            " | zstd_c=0/0/0/0 zstd_d=0/0/0/0 deflate=10/1/9/200000 inflate=2/1/1/20000"
            " lz4_c=0/0/0/0 lz4hc_c=0/0/0/0");
  EXPECT_STREQ(ModeName(RockpoolOptions::Mode::kMeasureStock), "measure_stock");
}

}  // namespace
}  // namespace rockpool
