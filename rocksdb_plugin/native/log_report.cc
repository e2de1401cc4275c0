#include "rocksdb_plugin/native/log_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compression/annotated_mutex.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/own_file.h"
#include "rocksdb_plugin/report.h"
#include "rocksdb_plugin/verbose.h"

namespace rockpool::native {
namespace {

// Loggers this many distinct LOGs ago may be announced again (a DB reopened
// with the same manager usually gets a new Logger anyway).
constexpr size_t kMaxAnnounced = 64;

}  // namespace

const char* ReasonName(rocksdb::TableFileCreationReason reason) {
  switch (reason) {
    case rocksdb::TableFileCreationReason::kFlush:
      return "flush";
    case rocksdb::TableFileCreationReason::kCompaction:
      return "compaction";
    case rocksdb::TableFileCreationReason::kRecovery:
      return "recovery";
    case rocksdb::TableFileCreationReason::kMisc:
      return "misc";
  }
  return "misc";
}

std::string ActiveLine(const RockpoolOptions& options) {
  return absl::StrCat("rockpool active: ", options.ToString(), " mode=", ModeName(options.mode()),
                      "; native face: compression_manager=rockpool (compatibility name BuiltinV2), "
                      "RocksDB ",
                      ROCKSDB_MAJOR, ".", ROCKSDB_MINOR, ".", ROCKSDB_PATCH);
}

std::string SstFileHead(rocksdb::TableFileCreationReason reason, const std::string& column_family,
                        int level) {
  return absl::StrCat("event=", ReasonName(reason), " cf=", column_family, " level=", level);
}

void ManagerReporter::AnnounceOnce(rocksdb::Logger* log, const RockpoolOptions& options) noexcept {
  if (log == nullptr) return;
  try {
    {
      AnnotatedMutexLock lock(&mu_);
      if (std::find(announced_.begin(), announced_.end(), log) != announced_.end()) return;
      if (announced_.size() >= kMaxAnnounced) announced_.erase(announced_.begin());
      announced_.push_back(log);
    }
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "%s", ActiveLine(options).c_str());
  } catch (...) {
    // Out of memory: no line; compression goes on.
  }
}

void ManagerReporter::Report(rocksdb::Logger* log, std::string_view head,
                             RockpoolOptions::Mode mode, const CompressionPools& pools) noexcept {
  try {
    AnnotatedMutexLock lock(&mu_);
    const CompressionPoolsStats now = pools.stats();
    // The native face has no leases a reset cannot restore: discarded=0.
    const std::string line = FormatReport(head, mode, now, last_, /*discarded=*/0);
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "%s", line.c_str());
    last_ = now;
  } catch (...) {
    // Out of memory: no line.
  }
}

void SstFileReport::Write() noexcept {
  try {
    pools_->ReleaseExpired();
  } catch (...) {
  }
  reporter_->Report(log_, head_, mode_, *pools_);
}

std::string NativeStatsPath() {
  const char* path = secure_getenv(kNativeStatsVariable);
  if (path == nullptr) return "";
  return absl::StrReplaceAll(path, {{"%p", absl::StrCat(getpid())}});
}

void AppendNativeStatsLine(std::string_view line) noexcept {
  try {
    const std::string path = NativeStatsPath();
    if (path.empty()) return;
    mode_t mode = kOwnFileMode;
    if (const char* m = secure_getenv(kNativeStatsModeVariable); m != nullptr && *m != '\0') {
      absl::StatusOr<mode_t> parsed = ParseFileMode(m);
      if (!parsed.ok()) {
        SayVerbose(absl::StrCat(kNativeStatsModeVariable, "=", parsed.status().message(),
                                "; nothing written"));
        return;
      }
      mode = *parsed;
    }
    // One write: O_APPEND keeps lines of concurrent processes whole. Only
    // to this user's own regular file, never through a link (own_file.h).
    if (absl::Status s = AppendToOwnFile(path, absl::StrCat(line, "\n"), mode); !s.ok()) {
      SayVerbose(absl::StrCat(kNativeStatsVariable, ": ", s.message()));
    }
  } catch (...) {
  }
}

void AppendCloseReport(RockpoolOptions::Mode mode, const CompressionPools& pools) noexcept {
  try {
    const char* path = secure_getenv(kNativeStatsVariable);
    if (path == nullptr || *path == '\0') return;
    const CompressionPoolsStats now = pools.stats();
    const PoolStats total = now.Total();
    if (total.created + total.reused == 0) return;  // a manager RocksDB only parsed
    AppendNativeStatsLine(FormatReport(absl::StrCat("event=close face=native pid=", getpid()), mode,
                                       now, CompressionPoolsStats{}, /*discarded=*/0));
  } catch (...) {
  }
}

}  // namespace rockpool::native
