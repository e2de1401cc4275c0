#include "tools/sst/codec_decompressor.h"

#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "compression/block_format.h"

namespace rockpool::sst {
namespace {

// The last dictionary seen, digested.
class DictionaryCache {
 public:
  absl::StatusOr<std::shared_ptr<const ZstdDictionary>> Get(std::string_view raw) {
    absl::MutexLock lock(&mu_);
    if (dict_ == nullptr || dict_->raw() != raw) {
      absl::StatusOr<std::shared_ptr<const ZstdDictionary>> made =
          ZstdDictionary::Create(raw, kRocksDbDefaultLevel);
      if (!made.ok()) return made.status();
      dict_ = std::move(*made);
    }
    return dict_;
  }

 private:
  absl::Mutex mu_;
  std::shared_ptr<const ZstdDictionary> dict_;
};

}  // namespace

BlockDecompressor MakeBlockCodecsDecompressor(const BlockCodecs* codecs) {
  auto cache = std::make_shared<DictionaryCache>();
  return [codecs, cache](uint8_t type, std::string_view payload, std::string_view dictionary,
                         std::string* out) -> absl::Status {
    if (dictionary.empty()) return codecs->Decompress(type, payload, nullptr, out);
    absl::StatusOr<std::shared_ptr<const ZstdDictionary>> dict = cache->Get(dictionary);
    if (!dict.ok()) return dict.status();
    return codecs->Decompress(type, payload, dict->get(), out);
  };
}

}  // namespace rockpool::sst
