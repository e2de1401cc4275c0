#include "tools/sst/rocksdb_calls.h"

#include "absl/strings/str_cat.h"
#include "rocksdb/version.h"

namespace rockpool::sst {

// 9.11 is the first release with both overloads (include/rocksdb/db.h).
#define ROCKPOOL_DB_OPEN_TAKES_UNIQUE_PTR \
  (ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 11))

rocksdb::Status OpenDb(const rocksdb::DBOptions& options, const std::string& name,
                       const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                       std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                       std::unique_ptr<rocksdb::DB>* db) {
#if ROCKPOOL_DB_OPEN_TAKES_UNIQUE_PTR
  return rocksdb::DB::Open(options, name, families, handles, db);
#else
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, name, families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

rocksdb::Status OpenDb(const rocksdb::Options& options, const std::string& name,
                       std::unique_ptr<rocksdb::DB>* db) {
#if ROCKPOOL_DB_OPEN_TAKES_UNIQUE_PTR
  return rocksdb::DB::Open(options, name, db);
#else
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, name, &raw);
  db->reset(raw);
  return s;
#endif
}

absl::Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  const std::string message =
      absl::StrCat(absl::string_view(what.data(), what.size()), ": ", s.ToString());
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsNotSupported()) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

}  // namespace rockpool::sst
