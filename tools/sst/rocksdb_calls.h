// The RocksDB calls sst_replay and the tests make whose signatures differ
// between the RocksDB versions the project builds against: Debian's 7.8.3 and an
// upstream install (>= 10.4, ROCKPOOL_ROCKSDB_PREFIX). RocksDB 9.11 added
// DB::Open overloads taking std::unique_ptr<DB>*, and 11.0 removed the
// DB** ones (include/rocksdb/db.h); 7.8.3 has only DB**.
#ifndef ROCKPOOL_TOOLS_SST_ROCKSDB_CALLS_H_
#define ROCKPOOL_TOOLS_SST_ROCKSDB_CALLS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace rockpool::sst {

// DB::Open with column families, into `db` (reset on failure).
rocksdb::Status OpenDb(const rocksdb::DBOptions& options, const std::string& name,
                       const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                       std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                       std::unique_ptr<rocksdb::DB>* db);

// DB::Open of the default column family only.
rocksdb::Status OpenDb(const rocksdb::Options& options, const std::string& name,
                       std::unique_ptr<rocksdb::DB>* db);

// OK for OK; otherwise "<what>: <RocksDB's message>", as DataLoss for
// Corruption, Unimplemented for NotSupported and Internal for the rest.
absl::Status FromRocks(const rocksdb::Status& s, std::string_view what);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_ROCKSDB_CALLS_H_
