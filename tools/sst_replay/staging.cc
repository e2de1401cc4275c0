#include "tools/sst_replay/staging.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/errors.h"
#include "tools/sst/internal_key.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

constexpr uint8_t kTypeDeletion = 0x0;
constexpr uint8_t kTypeValue = 0x1;
constexpr uint8_t kTypeSingleDeletion = 0x7;

}  // namespace

rocksdb::ColumnFamilyOptions CompactionFamilyOptions(const CompactionGroup& g) {
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = static_cast<rocksdb::CompressionType>(g.codec.type);
  cf.compression_opts.level = g.codec.level;
  cf.compression_opts.window_bits = g.codec.window_bits;
  cf.compression_opts.strategy = g.codec.strategy;
  cf.compression_opts.max_dict_bytes = g.codec.max_dict_bytes;
  cf.compression_opts.parallel_threads = g.codec.parallel_threads;
  cf.disable_auto_compactions = true;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = g.block_size;
  table.format_version = g.format_version;
  table.checksum = static_cast<rocksdb::ChecksumType>(g.checksum);
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return cf;
}

absl::StatusOr<StagedFile> StageForIngestion(const std::string& input,
                                             const sst::SstReadOptions& read_options,
                                             const CompactionGroup& group,
                                             const std::string& output) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<sst::SstFile> file,
                            sst::SstFile::Open(input, read_options));
  const std::string_view comparator = file->properties()
                                          .Get(sst::property_names::kComparator)
                                          .value_or("leveldb.BytewiseComparator");
  if (comparator != "leveldb.BytewiseComparator") {
    return sst::UnsupportedError(
        input, 0,
        absl::StrCat("comparator ", std::string(comparator),
                     " (compaction mode stages files with the bytewise comparator only)"));
  }
  ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<sst::BlockHandle> handles, file->DataBlockHandles());

  rocksdb::Options options(rocksdb::DBOptions(), CompactionFamilyOptions(group));
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  auto written = [&](const rocksdb::Status& s) {
    return s.ok() ? absl::OkStatus()
                  : absl::InternalError(absl::StrCat("staging ", output, ": ", s.ToString()));
  };
  StagedFile staged;
  staged.empty = true;  // until the first entry to write opens the file
  std::optional<std::string> last_user_key;
  for (const sst::BlockHandle& h : handles) {
    ROCKPOOL_ASSIGN_OR_RETURN(const std::string block,
                              file->ReadBlockContents(h, sst::BlockKind::kData));
    absl::StatusOr<sst::BlockIterator> it = sst::BlockIterator::Create(block);
    if (!it.ok()) return sst::WithContext(it.status(), input, h.offset);
    while (it->Next()) {
      std::optional<sst::ParsedInternalKey> key = sst::ParseInternalKey(it->key());
      if (!key.has_value()) {
        return sst::CorruptionError(input, h.offset, "data block key shorter than 8 bytes");
      }
      // Entries of one user key come newest first: keep the first.
      if (last_user_key == key->user_key) continue;
      last_user_key = std::string(key->user_key);
      if (key->type != kTypeValue && key->type != kTypeDeletion &&
          key->type != kTypeSingleDeletion) {
        ++staged.skipped_entries;
        continue;
      }
      if (staged.empty) ROCKPOOL_RETURN_IF_ERROR(written(writer.Open(output)));
      staged.empty = false;
      ROCKPOOL_RETURN_IF_ERROR(written(key->type == kTypeValue
                                           ? writer.Put(key->user_key, it->value())
                                           : writer.Delete(key->user_key)));
    }
    if (!it->status().ok()) return sst::WithContext(it->status(), input, h.offset);
  }
  if (!staged.empty) ROCKPOOL_RETURN_IF_ERROR(written(writer.Finish()));
  return staged;
}

}  // namespace rockpool::replay
