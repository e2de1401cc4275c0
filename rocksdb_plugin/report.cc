#include "rocksdb_plugin/report.h"

#include "absl/strings/str_cat.h"

namespace rockpool {
namespace {

uint64_t Scale(uint64_t leases, uint64_t total, uint64_t created) {
  if (created == 0) return 0;
  // leases * total / created without overflow for realistic figures.
  return static_cast<uint64_t>(static_cast<long double>(leases) * total / created);
}

std::string FiguresText(const PoolFigures& f) {
  std::string out;
  for (const PoolFigureField& field : kPoolFigureFields) {
    absl::StrAppend(&out, out.empty() ? "" : " ", field.name, "=", f.*field.member);
  }
  return out;
}

std::string Compact(const PoolFigures& f) {
  std::string out;
  for (size_t i = 0; i < kPerPoolFigures; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : "/", f.*kPoolFigureFields[i].member);
  }
  return out;
}

}  // namespace

const char* ModeName(RockpoolOptions::Mode mode) {
  switch (mode) {
    case RockpoolOptions::Mode::kForward:
      return "forward";
    case RockpoolOptions::Mode::kPool:
      return "pool";
    case RockpoolOptions::Mode::kMeasureStock:
      return "measure_stock";
  }
  return "?";
}

PoolFigures Figures(const PoolStats& now, const PoolStats& before) {
  PoolFigures f;
  f.created = now.created - before.created;
  f.reused = now.reused - before.reused;
  f.leases = f.created + f.reused;
  f.lib_bytes = now.library.bytes_allocated - before.library.bytes_allocated;
  f.lib_allocs = now.library.allocations - before.library.allocations;
  f.stock_est_bytes = Scale(f.leases, now.library.bytes_allocated, now.created);
  f.stock_est_allocs = Scale(f.leases, now.library.allocations, now.created);
  return f;
}

PoolFigures TotalFigures(const CompressionPoolsStats& now, const CompressionPoolsStats& before) {
  PoolFigures total;
#define ROCKPOOL_ADD_POOL_FIGURES(name, ...) Add(&total, Figures(now.name, before.name));
  ROCKPOOL_POOL_TABLE(ROCKPOOL_ADD_POOL_FIGURES)
#undef ROCKPOOL_ADD_POOL_FIGURES
  return total;
}

std::string FormatReport(const std::string& event, int job_id, const std::string& column_family,
                         RockpoolOptions::Mode mode, const CompressionPoolsStats& now,
                         const CompressionPoolsStats& last, uint64_t discarded) {
  return FormatReport(absl::StrCat("event=", event, " job=", job_id, " cf=", column_family), mode,
                      now, last, discarded);
}

std::string FormatReport(std::string_view head, RockpoolOptions::Mode mode,
                         const CompressionPoolsStats& now, const CompressionPoolsStats& last,
                         uint64_t discarded) {
  const CompressionPoolsStats zero{};
  const PoolStats sum = now.Total();
  std::string line =
      absl::StrCat("rockpool report: ", std::string(head), " mode=", ModeName(mode),
                   " | since_last: ", FiguresText(TotalFigures(now, last)),
                   " | total: ", FiguresText(TotalFigures(now, zero)), " | idle=", sum.idle,
                   " idle_bytes=", sum.idle_bytes, " peak_retained_bytes=", sum.peak_retained_bytes,
                   " in_use=", sum.in_use, " discarded=", discarded, " |");
#define ROCKPOOL_APPEND_POOL(name, report_key, ...) \
  absl::StrAppend(&line, " ", report_key, "=", Compact(Figures(now.name, zero.name)));
  ROCKPOOL_POOL_TABLE(ROCKPOOL_APPEND_POOL)
#undef ROCKPOOL_APPEND_POOL
  return line;
}

}  // namespace rockpool
