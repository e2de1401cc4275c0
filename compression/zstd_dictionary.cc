#include "compression/zstd_dictionary.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_createDDict_byReference
#include <zstd.h>

#include "absl/status/status.h"
#include "compression/zstd_level.h"

namespace rockpool {

absl::StatusOr<std::shared_ptr<const ZstdDictionary>> ZstdDictionary::Create(std::string_view raw,
                                                                             int level) {
  if (raw.empty()) return absl::InvalidArgumentError("zstd: empty dictionary");
  const int zstd_level = ZstdLevelFromRocksDb(level, RocksDbZstdLevels::kV7);
  std::shared_ptr<ZstdDictionary> dict(new ZstdDictionary(std::string(raw), zstd_level));
  dict->cdict_ = ZSTD_createCDict(dict->raw_.data(), dict->raw_.size(), zstd_level);
  if (dict->cdict_ == nullptr) {
    return absl::ResourceExhaustedError("zstd: cannot digest a compression dictionary");
  }
  // By reference: raw_ lives as long as the DDict.
  dict->ddict_ = ZSTD_createDDict_byReference(dict->raw_.data(), dict->raw_.size());
  if (dict->ddict_ == nullptr) {
    return absl::ResourceExhaustedError("zstd: cannot digest a decompression dictionary");
  }
  return dict;
}

void ZstdCDictDeleter::operator()(ZSTD_CDict* cdict) const { ZSTD_freeCDict(cdict); }
void ZstdDDictDeleter::operator()(ZSTD_DDict* ddict) const { ZSTD_freeDDict(ddict); }

ZstdCDictPtr DigestCDict(std::string_view raw, int zstd_level) {
  return ZstdCDictPtr(ZSTD_createCDict(raw.data(), raw.size(), zstd_level));
}

ZstdDDictPtr DigestDDictByReference(std::string_view raw) {
  return ZstdDDictPtr(ZSTD_createDDict_byReference(raw.data(), raw.size()));
}

size_t DigestedBytes(const ZSTD_DDict* ddict) {
  return ddict != nullptr ? ZSTD_sizeof_DDict(ddict) : 0;
}

ZstdDictionary::~ZstdDictionary() {
  ZSTD_freeCDict(cdict_);
  ZSTD_freeDDict(ddict_);
}

size_t ZstdDictionary::digested_bytes() const {
  return ZSTD_sizeof_CDict(cdict_) + ZSTD_sizeof_DDict(ddict_);
}

}  // namespace rockpool
