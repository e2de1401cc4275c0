// What a `rockpool report:` line says about one pool or all of them (its
// fields: report.h): the figures rocksdb_plugin/report.h writes and
// tools/rockpool/stats_file.h reads back. No dependencies, so the reader
// needs neither the pools nor RocksDB.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_

#include <cstdint>

namespace rockpool {

struct PoolFigures {
  uint64_t leases = 0;  // contexts handed to the codec calls (created + reused)
  uint64_t created = 0;
  uint64_t reused = 0;
  uint64_t lib_bytes = 0;        // bytes the codec libraries allocated
  uint64_t lib_allocs = 0;       // their allocation calls
  uint64_t stock_est_bytes = 0;  // what stock RocksDB would have allocated
  uint64_t stock_est_allocs = 0;
};

// Adds b's figures into a.
inline void Add(PoolFigures* a, const PoolFigures& b) {
  a->leases += b.leases;
  a->created += b.created;
  a->reused += b.reused;
  a->lib_bytes += b.lib_bytes;
  a->lib_allocs += b.lib_allocs;
  a->stock_est_bytes += b.stock_est_bytes;
  a->stock_est_allocs += b.stock_est_allocs;
}

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_
