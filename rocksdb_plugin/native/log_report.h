// What the native face writes to a DB's info LOG (the legacy face's lines,
// rocksdb_plugin/report.h, with the native face's head fields).
//
// RocksDB hands a CompressionManager the DB's info LOG only when it builds
// an SST file (FilterBuildingContext: info_log, reason, column family,
// level), so that is when the native face writes:
//
//   rockpool active: enabled=true;max_idle_per_key=8;idle_seconds=60;measure_stock=false
//     mode=pool; native face: compression_manager=rockpool (compatibility name BuiltinV2),
//     RocksDB 11.8.1
//       once per manager and LOG, at the first SST file it builds for that DB;
//   rockpool report: event=flush cf=default level=0 mode=pool | since_last: ...
//     | total: ... | idle=... | zstd_c=... zstd_d=... deflate=... inflate=...
//       after every SST file built with a pooled (zstd or zlib) compressor,
//       when RocksDB destroys the file's compressor (all its contexts are back
//       in the pool). event= is the file's TableFileCreationReason (flush,
//       compaction, recovery, misc); since_last is since this manager's
//       previous report, so it includes the reads served in between.
//
// A DB that only reads never shows the native face a LOG. For processes like
// that (sst_dump, ldb scans), ROCKPOOL_NATIVE_STATS=/path makes every manager
// that leased a context append one "rockpool report: event=close face=native
// pid=N ..." line to that file when it is destroyed ("%p" in the path: the
// process id). It appends only to a regular file of this process's user,
// never through a symbolic link (rocksdb_plugin/own_file.h), creating it
// with mode ROCKPOOL_STATS_MODE (octal, default 0600); a refused path is one
// line on stderr with ROCKPOOL_VERBOSE=1, never a write. In a privileged
// process (AT_SECURE) neither variable is read (secure_getenv).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_LOG_REPORT_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_LOG_REPORT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compression/compression_pools.h"
#include "rocksdb/env.h"
#include "rocksdb/types.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::native {

inline constexpr char kNativeStatsVariable[] = "ROCKPOOL_NATIVE_STATS";
// The same variable as the legacy face's (legacy/environment.h).
inline constexpr char kNativeStatsModeVariable[] = "ROCKPOOL_STATS_MODE";

// "flush", "compaction", "recovery", "misc".
const char* ReasonName(rocksdb::TableFileCreationReason reason);

// "rockpool active: <options> mode=<mode>; native face: ..." (no newline).
std::string ActiveLine(const RockpoolOptions& options);

// The LOG lines of one RockpoolCompressionManager (shared with the SST file
// reports it hands out, which may outlive it). Thread-safe; nothing throws.
class ManagerReporter {
 public:
  ManagerReporter() = default;
  ManagerReporter(const ManagerReporter&) = delete;
  ManagerReporter& operator=(const ManagerReporter&) = delete;

  // Writes ActiveLine(options) to `log` unless this manager already did.
  void AnnounceOnce(rocksdb::Logger* log, const RockpoolOptions& options) noexcept;

  // Writes the report line for `head` ("event=flush cf=default level=0")
  // to `log`, with since_last since this reporter's previous line. Lines
  // reach the LOG in the order of their snapshots.
  void Report(rocksdb::Logger* log, std::string_view head, RockpoolOptions::Mode mode,
              const CompressionPools& pools) noexcept;

 private:
  absl::Mutex mu_;
  CompressionPoolsStats last_ ABSL_GUARDED_BY(mu_);
  std::vector<const rocksdb::Logger*> announced_ ABSL_GUARDED_BY(mu_);
};

// Where an SST file's report goes and what its head says. The pooled
// compressor RocksDB got for the file owns one and calls Write() when it is
// destroyed (an unused report writes nothing).
class SstFileReport {
 public:
  SstFileReport(std::shared_ptr<ManagerReporter> reporter, std::shared_ptr<CompressionPools> pools,
                rocksdb::Logger* log, std::string head, RockpoolOptions::Mode mode)
      : reporter_(std::move(reporter)),
        pools_(std::move(pools)),
        log_(log),
        head_(std::move(head)),
        mode_(mode) {}
  SstFileReport(const SstFileReport&) = delete;
  SstFileReport& operator=(const SstFileReport&) = delete;

  // Frees expired idle contexts (as the legacy face does after every flush
  // and compaction), then writes the report line to the LOG.
  void Write() noexcept;

 private:
  const std::shared_ptr<ManagerReporter> reporter_;
  const std::shared_ptr<CompressionPools> pools_;
  rocksdb::Logger* const log_;
  const std::string head_;
  const RockpoolOptions::Mode mode_;
};

// "event=flush cf=default level=0".
std::string SstFileHead(rocksdb::TableFileCreationReason reason, const std::string& column_family,
                        int level);

// The file ROCKPOOL_NATIVE_STATS names, "%p" replaced by this process's id
// (as in ROCKPOOL_STATS, so `rockpool run --stats` gives each
// process its own file); "" when unset or empty.
std::string NativeStatsPath();

// If ROCKPOOL_NATIVE_STATS names a file, appends `line` and a newline to
// it in one write (O_APPEND: lines of concurrent processes stay whole).
void AppendNativeStatsLine(std::string_view line) noexcept;

// If ROCKPOOL_NATIVE_STATS names a file and `pools` leased a context,
// appends "rockpool report: event=close face=native pid=N ..." to it.
void AppendCloseReport(RockpoolOptions::Mode mode, const CompressionPools& pools) noexcept;

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_LOG_REPORT_H_
