// The context pools rockpool runs, listed once. Everything that has one
// thing per pool (CompressionPools' statistics and bulk operations, the report
// line's per-pool fields, the legacy face's outstanding leases, the stats
// reader of tools/rockpool, sst_replay's per-pool metrics) expands this
// X-macro instead of naming the pools again, so a pool added here appears
// everywhere or fails to build.
// No dependencies: the stats reader needs neither the pools nor a codec.
//
// X(name, report_key, in_every_line):
//   name           the statistics field, and CompressionPools' accessor of
//                  the pool (written out there, compression_pools.h)
//   report_key     its field in the `rockpool report:` line
//                  (rocksdb_plugin/report.h)
//   in_every_line  false if report lines written before the pool existed
//                  lack the field (the stats reader then reads it as zero)
#ifndef ROCKPOOL_COMPRESSION_POOL_TABLE_H_
#define ROCKPOOL_COMPRESSION_POOL_TABLE_H_

#define ROCKPOOL_POOL_TABLE(X)       \
  X(zstd_compress, "zstd_c", true)   \
  X(zstd_decompress, "zstd_d", true) \
  X(deflate, "deflate", true)        \
  X(inflate, "inflate", true)        \
  X(lz4, "lz4_c", false)             \
  X(lz4hc, "lz4hc_c", false)

#endif  // ROCKPOOL_COMPRESSION_POOL_TABLE_H_
