// tools/sst_replay on bad inputs (exit 2, one line naming file and offset,
// the input left alone) and bad usage.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/sst_replay/sst_replay_test_util.h"

namespace rockpool {
namespace {

using namespace sst_replay_testing;  // NOLINT: the suites' shared helpers
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct BadInput {
  std::string name;
  std::vector<std::string> flags;
  // Makes the input; returns its path. `offset` receives the offset the
  // message must name.
  std::function<std::string(uint64_t* offset)> make;
  std::string message;  // a substring of the one-line message
};

class SstReplayBadInputTest : public SstReplayTest,
                              public ::testing::WithParamInterface<BadInput> {};

TEST_P(SstReplayBadInputTest, ExitsTwoNamingFileAndOffsetAndLeavesInputAlone) {
  uint64_t offset = 0;
  const std::string path = GetParam().make(&offset);
  const Snapshot before = Take(path);
  std::vector<std::string> args = GetParam().flags;
  args.push_back("--repeat=1");
  args.push_back("--rocksdb_version=7.8");  // bare files
  args.push_back(path);
  Outcome o = Replay(args);
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr(absl::StrCat(path, ": offset ", offset, ": ")));
  EXPECT_THAT(o.err, HasSubstr(GetParam().message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Take(path), before) << "the input was modified";
}

std::string BadCopy(const std::string& name) {
  return absl::StrCat(sst_testing::TestTempDir(), "/", name);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SstReplayBadInputTest,
    ::testing::Values(
        BadInput{
            "missing", {}, [](uint64_t*) { return BadCopy("does_not_exist.sst"); }, "No such file"},
        BadInput{"not_an_sst",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = BadCopy("notes.sst");
                   std::ofstream(p) << std::string(200, 'x');
                   *offset = 192;
                   return p;
                 },
                 "not a block-based SST file"},
        BadInput{"empty_directory",
                 {},
                 [](uint64_t*) {
                   const std::string p = BadCopy("empty_dir");
                   fs::create_directories(p);
                   return p;
                 },
                 "no SST or blob files"},
        BadInput{"truncated",
                 {},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "truncated.sst");
                   fs::resize_file(p, fs::file_size(p) / 2);
                   *offset = fs::file_size(p) - 8;
                   return p;
                 },
                 "not a block-based SST file"},
        BadInput{"wrong_magic",
                 {},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "magic.sst");
                   *offset = fs::file_size(p) - 8;
                   PatchFile(p, *offset, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
                   return p;
                 },
                 "not a block-based SST file (magic 0x0807060504030201"},
        BadInput{"unsupported_format_version",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(SstReplayTest::zstd_->path, "fv9.sst");
                   *offset = fs::file_size(p) - 12;
                   PatchFile(p, *offset, std::string("\x09\x00\x00\x00", 4));
                   return p;
                 },
                 "unsupported: format_version 9"},
        BadInput{"checksum_mismatch",
                 {"--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(SstReplayTest::zlib_->path, "crc.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   PatchFile(p, h.offset + h.size / 2, std::string("\xff\x00\xff", 3));
                   *offset = h.offset;
                   return p;
                 },
                 "block checksum mismatch"},
        BadInput{"checksum_mismatch_compaction_mode",
                 {"--mode=compaction"},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zstd_->path, "crc2.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   PatchFile(p, h.offset + 7, "\x5a\xa5");
                   *offset = h.offset;
                   return p;
                 },
                 "block checksum mismatch"},
        BadInput{"corrupt_block_unchecked",
                 {"--verify_checksums=false", "--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p =
                       SstReplayTest::Copy(SstReplayTest::zlib_->path, "corrupt.sst");
                   const sst::BlockHandle h = FirstDataBlock(p);
                   // The size prefix now declares 4 GiB - 1.
                   PatchFile(p, h.offset, std::string("\xff\xff\xff\xff\x0f", 5));
                   *offset = h.offset;
                   return p;
                 },
                 "uncompressed bytes, over max_block_size"},
        BadInput{"blob_crc_mismatch",
                 {"--mode=blocks"},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zlib_blobs_->blob_files[0], "000031.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 1);
                   PatchFile(p, *offset + 60, "\x33");
                   return p;
                 },
                 "blob record CRC mismatch"},
        BadInput{"blob_record_header_crc_mismatch",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zstd_blobs_->blob_files[0], "000032.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 2);
                   PatchFile(p, *offset + 16, "\x07");  // the expiration
                   return p;
                 },
                 "blob record header CRC mismatch"},
        BadInput{"blob_truncated_inside_a_record",
                 {},
                 [](uint64_t* offset) {
                   const std::string p = SstReplayTest::Copy(
                       SstReplayTest::zlib_blobs_->blob_files[1], "000033.blob");
                   *offset = SstReplayTest::BlobRecordOffset(p, 4);
                   fs::resize_file(p, *offset + 40);
                   return p;
                 },
                 "runs past the end of the file"},
        BadInput{"not_a_blob_file",
                 {},
                 [](uint64_t*) {
                   const std::string p = BadCopy("000034.blob");
                   std::ofstream(p) << std::string(64, 'b');
                   return p;
                 },
                 "not a blob file: bad magic number"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(SstReplayUsageTest, UsageErrorsExitTwoAndHelpExitsZero) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"--mode=fast"},
                                             {"--repeat=0"},
                                             {"--codec=snappy"},
                                             {"--level=high"},
                                             {"--repeat"}}) {
    Outcome o = Replay(args);
    EXPECT_EQ(o.code, 2) << args[0];
    EXPECT_THAT(o.err, HasSubstr("Try --help")) << args[0];
  }
  Outcome help = Replay({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: sst_replay"));
  EXPECT_THAT(help.out, HasSubstr("--repeat"));
  EXPECT_THAT(help.out, HasSubstr("--svg"));
  EXPECT_THAT(help.out, Not(HasSubstr("internal_child")));
}

}  // namespace
}  // namespace rockpool
