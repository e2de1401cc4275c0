#include "tools/sst/footer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compression/coding.h"
#include "tests/tools/sst/synthetic_sst.h"

namespace rockpool::sst {
namespace {

using sst_testing::BuildSyntheticSst;
using sst_testing::MakeInternalKey;
using sst_testing::SyntheticSst;
using sst_testing::SyntheticSstOptions;

std::vector<std::pair<std::string, std::string>> SomeKvs() {
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 20; ++i) {
    kvs.emplace_back(MakeInternalKey("k" + std::to_string(100 + i), 0), "v");
  }
  return kvs;
}

absl::StatusOr<Footer> Decode(const std::string& file) {
  return DecodeFooter(file, file.size(), "t.sst");
}

TEST(Footer, EveryFormatVersionAndChecksum) {
  for (uint32_t fv = 0; fv <= kMaxFormatVersion; ++fv) {
    for (uint32_t c = 0; c <= 4; ++c) {
      SyntheticSstOptions o;
      o.format_version = fv;
      o.legacy_magic = fv == 0;
      o.checksum = fv == 0 ? ChecksumType::kCRC32c : static_cast<ChecksumType>(c);
      SyntheticSst sst = BuildSyntheticSst(SomeKvs(), o);
      absl::StatusOr<Footer> f = Decode(sst.bytes);
      ASSERT_TRUE(f.ok()) << "fv " << fv << " checksum " << c << ": " << f.status();
      EXPECT_EQ(f->format_version, fv);
      EXPECT_EQ(f->legacy_magic, fv == 0);
      EXPECT_EQ(f->checksum_type, o.checksum);
      EXPECT_EQ(f->metaindex_handle, sst.metaindex);
      if (fv >= 6) {
        EXPECT_TRUE(f->index_handle.IsNull());
        EXPECT_EQ(f->base_context_checksum, o.base_context_checksum);
        EXPECT_EQ(f->encoded_size, kFooterSize);
      } else {
        EXPECT_EQ(f->index_handle, sst.index);
        EXPECT_EQ(f->base_context_checksum, 0u);
        EXPECT_EQ(f->encoded_size, fv == 0 ? kLegacyFooterSize : kFooterSize);
      }
      EXPECT_EQ(f->footer_offset, sst.bytes.size() - f->encoded_size);
    }
  }
}

TEST(Footer, TooShort) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{47}}) {
    absl::StatusOr<Footer> f = Decode(std::string(n, 'x'));
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(f.status().message(), "t.sst: offset 0: file is too short"))
        << f.status();
  }
}

TEST(Footer, WrongMagicNamesItsOffset) {
  std::string bytes = BuildSyntheticSst(SomeKvs(), {}).bytes;
  bytes.back() ^= 1;
  absl::StatusOr<Footer> f = Decode(bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(f.status().message(), "offset " + std::to_string(bytes.size() - 8) +
                                                          ": not a block-based SST file"))
      << f.status();
}

TEST(Footer, UnsupportedFormatVersionAndChecksumType) {
  SyntheticSstOptions o;
  o.format_version = 5;
  std::string bytes = BuildSyntheticSst(SomeKvs(), o).bytes;
  std::string fv8 = bytes;
  fv8[fv8.size() - 12] = 8;
  absl::StatusOr<Footer> f = Decode(fv8);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(f.status().message(), "format_version 8")) << f.status();

  std::string bad_checksum = bytes;
  bad_checksum[bad_checksum.size() - kFooterSize] = 9;
  f = Decode(bad_checksum);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(f.status().message(), "checksum type 9")) << f.status();
}

TEST(Footer, V6ChecksumCoversEveryByte) {
  for (uint32_t fv : {6u, 7u}) {
    SyntheticSstOptions o;
    o.format_version = fv;
    o.checksum = ChecksumType::kXXH3;
    const std::string bytes = BuildSyntheticSst(SomeKvs(), o).bytes;
    const size_t start = bytes.size() - kFooterSize;
    // Bytes 41..52 (version, magic) are checked by other means first; every
    // other byte must trip the footer checksum or a field check.
    for (size_t i = start; i < start + 41; ++i) {
      std::string corrupt = bytes;
      corrupt[i] ^= 0x20;
      absl::StatusOr<Footer> f = Decode(corrupt);
      EXPECT_FALSE(f.ok()) << "byte " << i - start;
    }
    // The footer at another offset fails (context checksum).
    std::string shifted = "X" + bytes;
    absl::StatusOr<Footer> f = Decode(shifted);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_TRUE(absl::StrContains(f.status().message(), "footer checksum mismatch")) << f.status();
    // ... unless verification is off.
    EXPECT_TRUE(DecodeFooter(shifted, shifted.size(), "t", {.verify_checksum = false}).ok());
  }
}

TEST(Footer, V6ReservedBytesAreUnsupported) {
  SyntheticSstOptions o;
  o.format_version = 6;
  o.checksum = ChecksumType::kNoChecksum;  // so the footer checksum is only the modifier
  std::string bytes = BuildSyntheticSst(SomeKvs(), o).bytes;
  bytes[bytes.size() - kFooterSize + 35] = 1;
  absl::StatusOr<Footer> f = Decode(bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented) << f.status();
}

TEST(Footer, V6MetaindexSizeTooLarge) {
  SyntheticSstOptions o;
  o.format_version = 6;
  o.checksum = ChecksumType::kNoChecksum;
  std::string bytes = BuildSyntheticSst(SomeKvs(), o).bytes;
  std::string huge;
  PutFixed32(&huge, 0xfffffff0u);
  bytes.replace(bytes.size() - kFooterSize + 13, 4, huge);
  absl::StatusOr<Footer> f = Decode(bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss) << f.status();
}

TEST(Footer, MalformedHandles) {
  SyntheticSstOptions o;
  o.format_version = 3;
  std::string bytes = BuildSyntheticSst(SomeKvs(), o).bytes;
  // 40 bytes of 0xff: no varint terminates.
  bytes.replace(bytes.size() - kFooterSize + 1, 40, std::string(40, '\xff'));
  absl::StatusOr<Footer> f = Decode(bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StrContains(f.status().message(), "malformed block handles")) << f.status();
}

}  // namespace
}  // namespace rockpool::sst
