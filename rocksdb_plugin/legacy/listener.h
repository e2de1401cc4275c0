// The `rockpool` EventListener: how RocksDB 7.8.3 options switch pooling on.
//
//   DBOptions string / OPTIONS file:
//     listeners={id=rockpool;max_idle_per_key=8;idle_seconds=60}
//
// Creating the listener from options applies its RockpoolOptions to the
// process-wide runtime (runtime.h), most recent wins: RocksDB 7.8.3
// configures a listener it creates (ConfigureOptions, with
// invoke_prepare_options off: it never calls PrepareOptions on listeners), so
// the options are applied as soon as they parsed, before DB::Open. A listener
// built in C++ applies them in PrepareOptions or at its first callback. Unknown option names and
// bad values are Status::InvalidArgument naming the option, so GetDBOptionsFromString /
// LoadOptionsFromFile fail and the DB is never opened half-configured. The listener serialises its
// options, so the OPTIONS file RocksDB writes recreates it.
//
// In the DB's info LOG it writes "rockpool active: ..." (configuration and
// interposition status) the first time that DB calls it (OnFlushBegin or
// OnCompactionBegin: in 7.8.3 the earliest callback that carries the DB, and
// so its info_log; with Debian's shared librocksdb the DB::Open hook writes
// "rockpool active at open: ..." before, AnnounceAtOpen), then a `rockpool report:` line (report.h)
// after every flush and compaction, and frees contexts idle longer than idle_seconds. Programs that
// take no listener from options get one at DB::Open when the environment switched pooling on
// (environment.h, db_open_hook.cc).
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LISTENER_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LISTENER_H_

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compression/compression_pools.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy {

class RockpoolListener : public rocksdb::EventListener {
 public:
  static const char* kClassName() { return "rockpool"; }
  const char* Name() const override { return kClassName(); }

  // Default options; nothing is applied until configured, prepared or
  // called back.
  RockpoolListener();
  explicit RockpoolListener(const RockpoolOptions& options);
  ~RockpoolListener() override;

  // A listener that reports the current configuration to its DB's LOG and
  // never applies options of its own (what AttachRockpoolListener adds).
  static std::shared_ptr<RockpoolListener> NewObserver();

  RockpoolOptions options() const;

  rocksdb::Status PrepareOptions(const rocksdb::ConfigOptions& config_options) override;
  std::string GetPrintableOptions() const override;

  void OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;

  // Listeners alive in the process.
  static int LiveCountForTesting();

 protected:
  // Parses the whole map with rockpool's parser (options.h): unknown names
  // are InvalidArgument unless config_options.ignore_unknown_options; bad
  // values always are. All or nothing.
  rocksdb::Status ConfigureOptions(const rocksdb::ConfigOptions& config_options,
                                   const std::unordered_map<std::string, std::string>& opts_map,
                                   std::unordered_map<std::string, std::string>* unused) override;

 private:
  void Apply();
  void ApplyOnce();
  void Announce(rocksdb::DB* db);
  void Report(rocksdb::DB* db, const char* event, int job_id, const std::string& cf);

  // Registered with Configurable (offsets are unused: every option is parsed
  // and printed by options.h through custom functions).
  RockpoolOptions options_;
  std::atomic<bool> applied_{false};
  bool observer_ = false;  // NewObserver(): never applies its options

  absl::Mutex mu_;
  CompressionPoolsStats last_ ABSL_GUARDED_BY(mu_);
  std::set<const rocksdb::DB*> announced_ ABSL_GUARDED_BY(mu_);
};

// Builds a listener from "name=value;..." (rockpool options only), prepared
// (so its options are applied).
rocksdb::Status NewRockpoolListener(const std::string& options,
                                    std::shared_ptr<rocksdb::EventListener>* listener);

// Adds an observer listener to `options` if pooling is on and no `rockpool`
// listener is there yet, so that every DB's LOG gets "rockpool active" and
// the reports even when the program took no listener from options
// (db_open_hook.cc calls it for every DB::Open).
void AttachRockpoolListener(rocksdb::DBOptions* options) noexcept;

// Writes "rockpool active at open: <options> mode=...; <interposition>" to
// `options.info_log` when `options.listeners` has a `rockpool` listener: the
// DB's LOG says rockpool serves it as soon as it opens, not only at its first
// flush or compaction (db_open_hook.cc calls it with the sanitized options).
void AnnounceAtOpen(const rocksdb::DBOptions& options) noexcept;

// Adds the `rockpool` EventListener factory to `library`; returns 1. Done for
// ObjectLibrary::Default() when rockpool is loaded (registration.cc).
int RegisterRockpool(rocksdb::ObjectLibrary& library, const std::string& arg);

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LISTENER_H_
