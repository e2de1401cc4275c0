// The embedded default workload: a small DB, written by the RocksDB
// sst_replay is built with (Debian's 7.8.3 by default), with the
// repetition of real records, generated deterministically in a few seconds:
//   column family "events" (zstd): web/app event log lines as JSON, keyed by
//     user and time (user-agent strings, pages, countries and experiment
//     names drawn from skewed vocabularies);
//   column family "orders" (zlib): shop orders as JSON, keyed by order id
//     in random order (customers, products and addresses repeat);
//   column family "histories" (integrated BlobDB, zstd blobs): a customer's
//     order history as one 1-8 KiB JSON document, values >= 1 KiB stored in
//     blob files (enable_blob_files, min_blob_size, blob_compression_type).
// Written with that RocksDB's defaults (7.8.3: 4 KiB blocks, format_version
// 5, XXH3; 11.x: format_version 7)
// and flushed from 4 MiB memtables, so each family has several overlapping
// L0 files, like a DB that is due a compaction.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_WORKLOAD_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_WORKLOAD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace rockpool::replay {

struct WorkloadStats {
  uint64_t records = 0;
  uint64_t raw_bytes = 0;  // keys + values
  uint64_t sst_files = 0;
  uint64_t blobs = 0;  // values stored as blobs
  uint64_t blob_files = 0;
};

// Creates the DB in `db_dir` (which must not exist) with about `megabytes`
// MiB of keys and values: 3/8 events, 3/8 orders, 1/4 histories.
absl::StatusOr<WorkloadStats> GenerateDefaultWorkload(const std::string& db_dir,
                                                      uint64_t megabytes);

// The report's line on the generated workload: RocksDB version, records,
// bytes, families and files.
std::string DescribeWorkload(const WorkloadStats& stats);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_WORKLOAD_H_
