#include "tests/tools/sst_replay/blob_db_fixture.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rocksdb/db.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/crc32c.h"
#include "tools/sst/rocksdb_calls.h"

namespace rockpool::replay_testing {

namespace fs = std::filesystem;

absl::StatusOr<BlobDb> WriteBlobDb(const std::string& dir,
                                   rocksdb::CompressionType blob_compression, int flushes,
                                   int keys_per_flush) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  rocksdb::ColumnFamilyOptions cf;
  cf.enable_blob_files = true;
  cf.min_blob_size = 1024;
  cf.blob_compression_type = blob_compression;
  cf.compression = rocksdb::kZSTD;
  cf.disable_auto_compactions = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()}, {"blobs", cf}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = sst::OpenDb(db_options, dir, families, &handles, &db);
  if (!s.ok()) return absl::InternalError(s.ToString());
  BlobDb out;
  out.dir = dir;
  uint32_t x = 12345;
  for (int f = 0; f < flushes && s.ok(); ++f) {
    for (int i = 0; i < keys_per_flush && s.ok(); ++i) {
      x = x * 1103515245u + 12345u;
      const int key = (f * keys_per_flush + i) * 7919 % 100003;
      std::string value;
      const int parts = 10 + static_cast<int>(x >> 16) % 30;
      for (int p = 0; p < parts; ++p) {
        absl::StrAppendFormat(&value, R"({"item":%d,"name":"product-%d","qty":%d},)", p,
                              (x >> 8) % 50, p % 4);
      }
      s = db->Put(rocksdb::WriteOptions(), handles[1], absl::StrFormat("key%06d", key), value);
      if (value.size() >= cf.min_blob_size) ++out.blobs;
    }
    if (s.ok()) s = db->Flush(rocksdb::FlushOptions(), handles[1]);
  }
  for (rocksdb::ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h);
  if (s.ok()) s = db->Close();
  if (!s.ok()) return absl::InternalError(s.ToString());
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".blob") out.blob_files.push_back(e.path().string());
    if (e.path().extension() == ".sst") out.sst_files.push_back(e.path().string());
  }
  std::sort(out.blob_files.begin(), out.blob_files.end());
  std::sort(out.sst_files.begin(), out.sst_files.end());
  return out;
}

uint64_t CorruptBlobPayload(const std::string& blob_file, size_t n) {
  std::string data;
  {
    std::ifstream in(blob_file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    data = ss.str();
  }
  absl::StatusOr<sst::BlobFile> parsed = sst::ParseBlobFile(data, blob_file);
  if (!parsed.ok() || parsed->records.size() <= n) return 0;
  const sst::BlobRecord r = parsed->records[n];
  const size_t key_at = r.offset + sst::kBlobRecordHeaderSize;
  const size_t value_at = key_at + r.key.size();
  for (size_t i = 2; i < r.value.size(); ++i) data[value_at + i] = static_cast<char>(0xff);
  const uint32_t crc =
      sst::crc32c::Mask(sst::crc32c::Extend(sst::crc32c::Value(data.data() + key_at, r.key.size()),
                                            data.data() + value_at, r.value.size()));
  std::memcpy(&data[r.offset + 28], &crc, sizeof(crc));
  std::ofstream(blob_file, std::ios::binary | std::ios::trunc) << data;
  return r.offset;
}

std::string CopyWithoutFooter(const std::string& blob_file, const std::string& to) {
  std::ifstream in(blob_file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string data = ss.str();
  std::ofstream(to, std::ios::binary) << data.substr(0, data.size() - 32);
  return to;
}

}  // namespace rockpool::replay_testing
