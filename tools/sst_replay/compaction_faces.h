// What compaction mode's stock and pooled runs switch on in the RocksDB
// sst_replay is built with, and how their codec figures are read (the
// table under "compaction" in README.md beside this file): the legacy face
// counting (measure_stock) or pooling, plus on RocksDB >= 10.4 the native
// face's compression_manager for the pooled run's SST blocks.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_FACES_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_FACES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compression/compression_pools.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#if ROCKPOOL_ROCKSDB_NATIVE_API
#include "rocksdb/advanced_compression.h"
#endif
#include "tools/sst_replay/job.h"

namespace rockpool::replay {

class CompactionFaces {
 public:
  // Switches rockpool on for this process as `strategy` says (once per
  // child); max_idle_per_key applies to the pooled run's pools.
  static absl::StatusOr<std::unique_ptr<CompactionFaces>> Create(
      Strategy strategy, RockpoolOptions::MaxIdlePerKey max_idle_per_key);

  // One line for the report: what stock and pooled are in this build.
  static std::string Describe(RockpoolOptions::MaxIdlePerKey max_idle_per_key);

  // The listener to add to the DB's options (the legacy face).
  const std::shared_ptr<rocksdb::EventListener>& listener() const { return listener_; }
  // Sets what this strategy needs on a column family: on a >= 10.4 build,
  // compression_manager = the pooled run's manager, or none (the built-in)
  // for stock, whatever the DB's own OPTIONS named; nothing on 7.8.3.
  void ApplyTo(rocksdb::ColumnFamilyOptions* cf) const;
  // Every context of this process's rockpool pools so far (both faces).
  CompressionPoolsStats Stats() const;
  // The native manager's pools alone (zero when there is none).
  PoolStats NativeStats() const;
  // One line for the run's notes: which faces served the codec calls.
  std::string Note() const;

 private:
  CompactionFaces() = default;

  std::shared_ptr<rocksdb::EventListener> listener_;
  std::string interposition_;
#if ROCKPOOL_ROCKSDB_NATIVE_API
  // The pooled run's native manager, shared by every column family.
  std::shared_ptr<rocksdb::CompressionManager> manager_;
#endif
  // Its pools (null in stock runs and on 7.8.3).
  std::shared_ptr<CompressionPools> native_pools_;
};

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_COMPACTION_FACES_H_
