// What a `rockpool report:` line says about one pool or all of them (its
// fields: report.h): the figures rocksdb_plugin/report.h writes and
// tools/rockpool/stats_file.h reads back. No dependencies, so the reader
// needs neither the pools nor RocksDB.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_

#include <cstddef>
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

// Every figure and its name in the line, in the line's order: the one list
// the writer (report.cc), the reader (tools/rockpool/stats_file.cc) and Add
// go through. The per-pool form ("zstd_c=5/1/4/1012800") carries the first
// kPerPoolFigures of them, '/'-separated.
struct PoolFigureField {
  const char* name;
  uint64_t PoolFigures::*member;
};
inline constexpr PoolFigureField kPoolFigureFields[] = {
    {"leases", &PoolFigures::leases},
    {"created", &PoolFigures::created},
    {"reused", &PoolFigures::reused},
    {"lib_bytes", &PoolFigures::lib_bytes},
    {"lib_allocs", &PoolFigures::lib_allocs},
    {"stock_est_bytes", &PoolFigures::stock_est_bytes},
    {"stock_est_allocs", &PoolFigures::stock_est_allocs},
};
inline constexpr size_t kPerPoolFigures = 4;

// Adds b's figures into a.
inline void Add(PoolFigures* a, const PoolFigures& b) {
  for (const PoolFigureField& f : kPoolFigureFields) a->*f.member += b.*f.member;
}

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_POOL_FIGURES_H_
