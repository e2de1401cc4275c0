// The context pools rockpool runs, listed once. Everything that has one
// thing per pool (CompressionPools' members and statistics, the report
// line's per-pool fields, the legacy face's outstanding leases, the stats
// reader of tools/rockpool, sst_replay's per-pool metrics) expands this
// X-macro instead of naming the pools again, so a pool added here appears
// everywhere or fails to build.
// No dependencies: the stats reader needs neither the pools nor a codec.
//
// X(name, Policy, library, report_key, in_every_line):
//   name           the member, accessor and statistics field
//   Policy         its ContextPool policy (compression/*_contexts.h)
//   library        the CodecLibraries table its contexts call
//   report_key     its field in the `rockpool report:` line
//                  (rocksdb_plugin/report.h)
//   in_every_line  false if report lines written before the pool existed
//                  lack the field (the stats reader then reads it as zero)
#ifndef ROCKPOOL_COMPRESSION_POOL_TABLE_H_
#define ROCKPOOL_COMPRESSION_POOL_TABLE_H_

#define ROCKPOOL_POOL_TABLE(X)                                   \
  X(zstd_compress, ZstdCompressPolicy, zstd, "zstd_c", true)     \
  X(zstd_decompress, ZstdDecompressPolicy, zstd, "zstd_d", true) \
  X(deflate, DeflatePolicy, zlib, "deflate", true)               \
  X(inflate, InflatePolicy, zlib, "inflate", true)               \
  X(lz4, Lz4StreamPolicy, lz4, "lz4_c", false)                   \
  X(lz4hc, Lz4HcStreamPolicy, lz4, "lz4hc_c", false)

#endif  // ROCKPOOL_COMPRESSION_POOL_TABLE_H_
