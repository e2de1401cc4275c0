// The ROCKPOOL_STATS file of one process (rocksdb_plugin/legacy/environment.h):
// one `rockpool report: event=... pid=N mode=... | since_last: ... | total:
// ... | idle=... | zstd_c=... | zstd=STATE zlib=STATE lz4=STATE
// [zlib_forwarded="why"] [refused="why"]`
// line, the fields of rocksdb_plugin/report.h. Parsed here for `rockpool
// stats`; the codec states are optional (a LOG line has none), and so are
// the lz4 pools and state (lines written before rockpool pooled LZ4).
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_STATS_FILE_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_STATS_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compression/pool_table.h"
#include "rocksdb_plugin/pool_figures.h"

namespace rockpool::cli {

struct ProcessStats {
  std::string file;
  std::string event;  // exit, period, flush, compaction
  uint64_t pid = 0;
  std::string mode;   // pool, measure_stock, forward
  PoolFigures total;  // the `total:` segment
  uint64_t idle = 0;
  uint64_t idle_bytes = 0;
  uint64_t peak_retained_bytes = 0;  // 0 in lines written before it existed
  uint64_t in_use = 0;
  uint64_t discarded = 0;
  // Per pool of compression/pool_table.h: leases/created/reused/lib_bytes
  // (the other figures are 0).
#define ROCKPOOL_PROCESS_POOL_FIELD(name, ...) PoolFigures name;
  ROCKPOOL_POOL_TABLE(ROCKPOOL_PROCESS_POOL_FIELD)
#undef ROCKPOOL_PROCESS_POOL_FIELD
  // "pooled", "forwarded", "unused"; "" when the line has no codec states.
  std::string zstd_state, zlib_state, lz4_state;
  std::string zstd_forwarded, zlib_forwarded, lz4_forwarded;  // the reason, "" if none
  // Why rockpool served nothing in this process (the preload object in a
  // process running another RocksDB: rocksdb_plugin/legacy/refusal.h), "" if it did.
  std::string refused;

  // The stock estimate counts zstd leases too: then it is an upper bound.
  // RocksDB keeps one ZSTD_DCtx per core and creates another only when that
  // slot is busy (not one per lease), and the bytes per created zstd context
  // include workspace regrowth; mode=measure_stock gives the true figure.
  bool stock_estimate_is_upper_bound() const {
    return zstd_compress.leases + zstd_decompress.leases > 0;
  }

  // What pooling saved against the stock estimate (0 if it did not).
  uint64_t saved_bytes() const {
    return total.stock_est_bytes > total.lib_bytes ? total.stock_est_bytes - total.lib_bytes : 0;
  }
};

// Parses one report line. InvalidArgument naming the first missing or bad
// field.
absl::StatusOr<ProcessStats> ParseReportLine(absl::string_view line);

// A statistics file larger than this is not one (one line per process, or
// one per RocksDB instance for the native face's appended lines).
inline constexpr uint64_t kMaxStatsFileBytes = uint64_t{64} << 20;

// Reads `path` and parses its last `rockpool report:` line. NotFound,
// PermissionDenied or InvalidArgument (not a regular file, too large, no or
// a malformed report line), the message starting with the path.
absl::StatusOr<ProcessStats> ReadStatsFile(const std::string& path);

// The same for the text of such a file (`path` names it in messages): the
// parser of untrusted text its fuzzer drives.
absl::StatusOr<ProcessStats> ParseStatsText(const std::string& path, absl::string_view text);

// The sums of the counters (file "", pid 0; states empty).
ProcessStats Total(const std::vector<ProcessStats>& processes);

// The table: one row per process and a total row, then one line per codec
// forwarded (with the reason).
std::string FormatTable(const std::vector<ProcessStats>& processes);

// The same as one JSON object: {"processes": [...], "total": {...}}.
std::string FormatJson(const std::vector<ProcessStats>& processes);

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_STATS_FILE_H_
