// The statistics line rockpool writes to a DB's info LOG: the legacy face's
// listener after every flush and compaction, the native face after every SST
// file it builds (native/log_report.h). Plain text, one line, `key=value` fields so
// people can read it and scripts can grep it:
//
//   rockpool report: event=compaction job=7 cf=default mode=pool
//     | since_last: leases=412 created=0 reused=412 lib_bytes=0 lib_allocs=0
//       stock_est_bytes=83451392 stock_est_allocs=2060
//     | total: leases=5120 created=6 reused=5114 lib_bytes=1215312
//       lib_allocs=30 stock_est_bytes=1037107200 stock_est_allocs=25600
//     | idle=4 idle_bytes=810240 peak_retained_bytes=1012800 in_use=1 discarded=0
//     | zstd_c=0/0/0/0 zstd_d=0/0/0/0 deflate=5100/5/5095/1012800
//       inflate=20/1/19/202512 lz4_c=0/0/0/0 lz4hc_c=0/0/0/0
//
// (one line in the LOG; wrapped here). Definitions:
//   leases      contexts handed to the codec calls (= created + reused); stock
//               RocksDB creates one context per lease
//   lib_bytes   bytes the codec libraries allocated for those contexts
//   lib_allocs  their allocation calls
//   stock_est_* leases x the average bytes (calls) per created context: what
//               stock RocksDB would have allocated. In mode=measure_stock
//               nothing is reused and the lib_* figures are the stock ones.
//   idle, idle_bytes  contexts kept in the pools now, and the bytes they hold
//   peak_retained_bytes  the most bytes the pools' contexts held at once,
//               idle or leased (compression/pool/pool_options.h): at least
//               the peak of idle_bytes, so the most memory pooling kept that
//               stock would have freed
//   in_use      contexts leased out now; discarded: leases destroyed instead
//               of pooled (see runtime.h)
//   per pool    leases/created/reused/lib_bytes, totals; one field per pool of
//               compression/pool_table.h, in its order
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_REPORT_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_REPORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "compression/compression_pools.h"
#include "rocksdb_plugin/options.h"
#include "rocksdb_plugin/pool_figures.h"

namespace rockpool {

// Figures for one pool between two snapshots (`before` may be all zero).
// The stock estimate uses the average over `now` (all contexts created so far).
PoolFigures Figures(const PoolStats& now, const PoolStats& before);

// Sum of the figures of the pools the codec calls lease from (the table in
// compression/pool_table.h; zstd_compress_blocks is not one of them: it
// serves routed calls on contexts zstd_compress counts).
PoolFigures TotalFigures(const CompressionPoolsStats& now, const CompressionPoolsStats& before);

std::string FormatReport(const std::string& event, int job_id, const std::string& column_family,
                         RockpoolOptions::Mode mode, const CompressionPoolsStats& now,
                         const CompressionPoolsStats& last, uint64_t discarded);

// The same line with other leading fields: "rockpool report: <head> mode=..."
// (the ROCKPOOL_STATS file's process-wide report uses "event=exit pid=N").
std::string FormatReport(std::string_view head, RockpoolOptions::Mode mode,
                         const CompressionPoolsStats& now, const CompressionPoolsStats& last,
                         uint64_t discarded);

const char* ModeName(RockpoolOptions::Mode mode);

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_REPORT_H_
