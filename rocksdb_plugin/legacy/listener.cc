#include "rocksdb_plugin/legacy/listener.h"

#include <algorithm>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/annotated_mutex.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb_plugin/legacy/environment.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/option_glue.h"
#include "rocksdb_plugin/report.h"

namespace rockpool::legacy {
namespace {

using rocksdb::ConfigOptions;
using rocksdb::Status;

std::atomic<int> g_live_listeners{0};

}  // namespace

RockpoolListener::RockpoolListener() : RockpoolListener(RockpoolOptions{}) {}

RockpoolListener::RockpoolListener(const RockpoolOptions& options) : options_(options) {
  RegisterOptions("RockpoolOptions", &options_, &RockpoolOptionTypeMap());
  g_live_listeners.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<RockpoolListener> RockpoolListener::NewObserver() {
  auto listener = std::make_shared<RockpoolListener>(CurrentOptions());
  listener->observer_ = true;
  return listener;
}

RockpoolListener::~RockpoolListener() {
  // The last listener gone (every DB using rockpool closed): free the idle
  // contexts. Pooling stays as configured for DBs opened later. Not when the
  // environment configured the process: it pools for the process's whole
  // life (a program that closes and reopens its DBs, like db_stress, keeps
  // its contexts; idle_seconds still frees unused ones).
  if (g_live_listeners.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
      CurrentSource() != ConfigSource::kEnvironment) {
    try {
      TrimIdle();
    } catch (...) {
    }
  }
}

int RockpoolListener::LiveCountForTesting() {
  return g_live_listeners.load(std::memory_order_relaxed);
}

RockpoolOptions RockpoolListener::options() const { return options_; }

Status RockpoolListener::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  try {
    std::vector<std::pair<std::string, std::string>> pairs;
    const std::vector<std::string>& known = RockpoolOptionNames();
    for (const auto& [long_name, value] : opts_map) {
      std::string name = GetOptionName(long_name);  // strips "rockpool."
      if (std::find(known.begin(), known.end(), name) != known.end()) {
        pairs.emplace_back(std::move(name), value);
      } else if (unused != nullptr) {
        unused->emplace(long_name, value);  // the caller decides
      } else if (!config_options.ignore_unknown_options) {
        // Let the parser phrase the error.
        pairs.emplace_back(std::move(name), value);
      }
    }
    absl::StatusOr<RockpoolOptions> parsed = ParseRockpoolOptions(std::move(pairs), options_);
    if (!parsed.ok()) return ToRocksStatus(parsed.status());
    options_ = *parsed;
    if (config_options.invoke_prepare_options) return PrepareOptions(config_options);
    // RocksDB 7.8.3 configures listeners with invoke_prepare_options off and
    // never prepares them: a successfully configured listener is a created
    // one, so apply now (before DB::Open, so even its first reads pool).
    Apply();
    return Status::OK();
  } catch (const std::exception& e) {
    return Status::Aborted("rockpool: ", e.what());
  } catch (...) {
    return Status::Aborted("rockpool: configuring the listener failed");
  }
}

Status RockpoolListener::PrepareOptions(const ConfigOptions& config_options) {
  Status s = EventListener::PrepareOptions(config_options);
  if (s.ok()) Apply();
  return s;
}

std::string RockpoolListener::GetPrintableOptions() const { return options_.ToString(); }

void RockpoolListener::Apply() {
  // An observer reports the process's configuration; it must not replace it
  // (RocksDB may prepare the listeners of a DB it opens).
  if (observer_) return;
  Configure(options_, ConfigSource::kListener);
  applied_.store(true, std::memory_order_release);
}

void RockpoolListener::ApplyOnce() {
  if (!applied_.load(std::memory_order_acquire)) Apply();
}

void RockpoolListener::Announce(rocksdb::DB* db) {
  {
    AnnotatedMutexLock lock(&mu_);
    if (!announced_.insert(db).second) return;
  }
  std::shared_ptr<rocksdb::Logger> log = db->GetDBOptions().info_log;
  if (log == nullptr) return;
  const RockpoolOptions current = CurrentOptions();
  rocksdb::Log(
      rocksdb::InfoLogLevel::INFO_LEVEL, log, "rockpool active: %s mode=%s; %s%s",
      current.ToString().c_str(), ModeName(current.mode()), CheckInterposition().ToString().c_str(),
      current == options_ ? ""
                          : absl::StrCat(" (this DB's listener asked for ", options_.ToString(),
                                         "; another rockpool listener was applied later)")
                                .c_str());
}

void RockpoolListener::Report(rocksdb::DB* db, const char* event, int job_id,
                              const std::string& cf) {
  ReleaseExpired();
  std::shared_ptr<rocksdb::Logger> log = db->GetDBOptions().info_log;
  const CompressionPoolsStats now = Stats();
  std::string line;
  {
    AnnotatedMutexLock lock(&mu_);
    line = FormatReport(event, job_id, cf, CurrentMode(), now, last_, DiscardedContexts());
    last_ = now;
  }
  if (log != nullptr) {
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "%s", line.c_str());
  }
  WriteStatsFile(event);
}

void RockpoolListener::OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo&) {
  try {
    ApplyOnce();
    Announce(db);
  } catch (...) {
  }
}

void RockpoolListener::OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo&) {
  try {
    ApplyOnce();
    Announce(db);
  } catch (...) {
  }
}

void RockpoolListener::OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) {
  try {
    ApplyOnce();
    Announce(db);
    Report(db, "flush", info.job_id, info.cf_name);
  } catch (...) {
  }
}

void RockpoolListener::OnCompactionCompleted(rocksdb::DB* db,
                                             const rocksdb::CompactionJobInfo& info) {
  try {
    ApplyOnce();
    Announce(db);
    Report(db, "compaction", info.job_id, info.cf_name);
  } catch (...) {
  }
}

Status NewRockpoolListener(const std::string& options,
                           std::shared_ptr<rocksdb::EventListener>* listener) {
  absl::StatusOr<RockpoolOptions> parsed = ParseRockpoolOptionsString(options);
  if (!parsed.ok()) return ToRocksStatus(parsed.status());
  auto* created = new (std::nothrow) RockpoolListener(*parsed);
  if (created == nullptr) return Status::MemoryLimit("rockpool: cannot allocate the listener");
  std::shared_ptr<rocksdb::EventListener> out(created);
  Status s = created->PrepareOptions(ConfigOptions());
  if (!s.ok()) return s;
  *listener = std::move(out);
  return Status::OK();
}

void AttachRockpoolListener(rocksdb::DBOptions* options) noexcept {
  try {
    if (CurrentMode() == RockpoolOptions::Mode::kForward) return;
    for (const auto& l : options->listeners) {
      if (l != nullptr && std::string_view(l->Name()) == RockpoolListener::kClassName()) return;
    }
    options->listeners.push_back(RockpoolListener::NewObserver());
  } catch (...) {
    // The DB opens without rockpool's LOG lines; pooling is unaffected.
  }
}

void AnnounceAtOpen(const rocksdb::DBOptions& options) noexcept {
  try {
    if (options.info_log == nullptr) return;
    bool has_rockpool = false;
    for (const auto& l : options.listeners) {
      has_rockpool = has_rockpool || (l != nullptr && std::string_view(l->Name()) ==
                                                          RockpoolListener::kClassName());
    }
    if (!has_rockpool) return;
    const RockpoolOptions current = CurrentOptions();
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, options.info_log,
                 "rockpool active at open: %s mode=%s; %s", current.ToString().c_str(),
                 ModeName(current.mode()), CheckInterposition().ToString().c_str());
  } catch (...) {
    // No line; the first flush or compaction still announces.
  }
}

int RegisterRockpool(rocksdb::ObjectLibrary& library, const std::string&) {
  library.AddFactory<rocksdb::EventListener>(
      RockpoolListener::kClassName(),
      [](const std::string&, std::unique_ptr<rocksdb::EventListener>* guard,
         std::string* errmsg) -> rocksdb::EventListener* {
        try {
          guard->reset(new RockpoolListener());
          return guard->get();
        } catch (...) {
          if (errmsg != nullptr) *errmsg = "rockpool: cannot create the listener";
          return nullptr;
        }
      });
  return 1;
}

}  // namespace rockpool::legacy
