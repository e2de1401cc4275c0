// //tools/sst's blob file reader on synthetic files built here byte by byte
// (the real ones RocksDB 7.8.3 writes: tests/rocksdb_plugin/legacy/
// blob_db_test.cc): records, the optional footer, every CRC, and bad input
// as one error naming the file and offset.
#include "tools/sst/blob_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tools/sst/crc32c.h"

namespace rockpool::sst {
namespace {

void Put32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void Put64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
uint32_t Crc(std::string_view s) { return crc32c::Mask(crc32c::Value(s.data(), s.size())); }

std::string Header(uint8_t compression) {
  std::string s;
  Put32(&s, kBlobMagic);
  Put32(&s, 1);    // version
  Put32(&s, 7);    // column family
  s.push_back(0);  // flags
  s.push_back(static_cast<char>(compression));
  Put64(&s, 0);
  Put64(&s, 0);
  return s;
}

std::string Record(std::string_view key, std::string_view value) {
  std::string h;
  Put64(&h, key.size());
  Put64(&h, value.size());
  Put64(&h, 0);
  Put32(&h, Crc(h));
  Put32(&h, crc32c::Mask(
                crc32c::Extend(crc32c::Value(key.data(), key.size()), value.data(), value.size())));
  return h + std::string(key) + std::string(value);
}

std::string Footer(uint64_t count) {
  std::string f;
  Put32(&f, kBlobMagic);
  Put64(&f, count);
  Put64(&f, 0);
  Put64(&f, 0);
  Put32(&f, Crc(f));
  return f;
}

const std::string kRecords = Record("key1", "value one") + Record("k2", std::string(300, 'x'));

TEST(BlobFileTest, ClosedFile) {
  const std::string data = Header(7) + kRecords + Footer(2);
  absl::StatusOr<BlobFile> f = ParseBlobFile(data, "000012.blob");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->header.column_family_id, 7u);
  EXPECT_EQ(f->header.compression, 7);
  ASSERT_EQ(f->records.size(), 2u);
  EXPECT_EQ(f->records[0].key, "key1");
  EXPECT_EQ(f->records[0].value, "value one");
  EXPECT_EQ(f->records[0].offset, kBlobHeaderSize);
  EXPECT_EQ(f->records[1].value, std::string(300, 'x'));
  ASSERT_TRUE(f->footer.has_value());
  EXPECT_EQ(f->footer->blob_count, 2u);
}

TEST(BlobFileTest, FileStillBeingWrittenHasNoFooter) {
  absl::StatusOr<BlobFile> f = ParseBlobFile(Header(1) + kRecords, "open.blob");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->records.size(), 2u);
  EXPECT_FALSE(f->footer.has_value());
  f = ParseBlobFile(Header(1), "empty.blob");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->records.empty());
}

TEST(BlobFileTest, NotABlobFile) {
  absl::StatusOr<BlobFile> f = ParseBlobFile("short", "a.blob");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(f.status().message(),
            "a.blob: offset 0: not a blob file: 5 bytes, shorter than the "
            "30-byte header");
  std::string data = Header(1) + kRecords;
  data[0] ^= 1;
  f = ParseBlobFile(data, "b.blob");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(f.status().message(), "b.blob: offset 0: not a blob file: bad magic number");
}

TEST(BlobFileTest, CorruptionNamesTheOffset) {
  const std::string good = Header(1) + kRecords + Footer(2);
  const size_t second = kBlobHeaderSize + kBlobRecordHeaderSize + 4 + 9;
  {  // a value byte
    std::string data = good;
    data[second + kBlobRecordHeaderSize + 2 + 10] ^= 1;
    absl::StatusOr<BlobFile> f = ParseBlobFile(data, "c.blob");
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(f.status().message().find("c.blob: offset " + std::to_string(second) +
                                        ": blob record CRC mismatch"),
              std::string::npos)
        << f.status();
  }
  {  // a record header byte
    std::string data = good;
    data[kBlobHeaderSize + 3] ^= 1;
    absl::StatusOr<BlobFile> f = ParseBlobFile(data, "d.blob");
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(f.status().message().find("offset 30: blob record header CRC mismatch"),
              std::string::npos)
        << f.status();
  }
  {  // truncated in the middle of a record
    absl::StatusOr<BlobFile> f = ParseBlobFile(good.substr(0, second + 40), "e.blob");
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(f.status().message().find("offset " + std::to_string(second) + ": blob record"),
              std::string::npos)
        << f.status();
    f = ParseBlobFile(good.substr(0, second + 10), "e.blob");
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(f.status().message().find("truncated blob record header"), std::string::npos);
  }
  {  // a footer that counts other records
    absl::StatusOr<BlobFile> f = ParseBlobFile(Header(1) + kRecords + Footer(3), "f.blob");
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(f.status().message().find("footer counts 3 blobs, the file has 2"), std::string::npos)
        << f.status();
  }
}

}  // namespace
}  // namespace rockpool::sst
