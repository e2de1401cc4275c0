// A zstd dictionary digested once, as RocksDB uses it: raw dictionary bytes
// (as stored in an SST's "rocksdb.compression_dict" block) are digested into
// a ZSTD_CDict for one compression level and a ZSTD_DDict, and both are
// referenced per block instead of being rebuilt per block or per lease.
//
// The CDict is made with ZSTD_createCDict(raw, level), exactly as RocksDB
// does, because a CDict's recorded level steers parameter selection and so
// the compressed bytes. Immutable after creation; thread-safe to share.
#ifndef ROCKPOOL_COMPRESSION_ZSTD_DICTIONARY_H_
#define ROCKPOOL_COMPRESSION_ZSTD_DICTIONARY_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct ZSTD_CDict_s;
struct ZSTD_DDict_s;

namespace rockpool {

// Digested forms for callers that keep the raw bytes alive themselves (the
// native face: RocksDB owns an SST file's serialized dictionary), made as
// RocksDB >= 10.4 makes them. Null when zstd cannot digest (out of memory).
struct ZstdCDictDeleter {
  void operator()(ZSTD_CDict_s* cdict) const;
};
struct ZstdDDictDeleter {
  void operator()(ZSTD_DDict_s* ddict) const;
};
using ZstdCDictPtr = std::unique_ptr<ZSTD_CDict_s, ZstdCDictDeleter>;
using ZstdDDictPtr = std::unique_ptr<ZSTD_DDict_s, ZstdDDictDeleter>;
// ZSTD_createCDict(raw, zstd_level): copies `raw`.
ZstdCDictPtr DigestCDict(std::string_view raw, int zstd_level);
// ZSTD_createDDict_byReference: `raw` must outlive the DDict.
ZstdDDictPtr DigestDDictByReference(std::string_view raw);
size_t DigestedBytes(const ZSTD_DDict_s* ddict);

class ZstdDictionary {
 public:
  // `level` follows RocksDB 7.8.3 (zstd_level.h, kV7). An empty `raw`
  // is an error: callers pass no dictionary instead.
  static absl::StatusOr<std::shared_ptr<const ZstdDictionary>> Create(std::string_view raw,
                                                                      int level);
  ~ZstdDictionary();
  ZstdDictionary(const ZstdDictionary&) = delete;
  ZstdDictionary& operator=(const ZstdDictionary&) = delete;

  std::string_view raw() const { return raw_; }
  int level() const { return level_; }
  const ZSTD_CDict_s* cdict() const { return cdict_; }
  const ZSTD_DDict_s* ddict() const { return ddict_; }
  // Bytes held by the digested forms.
  size_t digested_bytes() const;

 private:
  ZstdDictionary(std::string raw, int level) : raw_(std::move(raw)), level_(level) {}
  const std::string raw_;
  const int level_;
  ZSTD_CDict_s* cdict_ = nullptr;
  ZSTD_DDict_s* ddict_ = nullptr;
};

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_ZSTD_DICTIONARY_H_
