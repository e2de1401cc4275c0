// Named regression tests for bugs the fuzz targets found (their inputs are
// also under regressions/ and replayed by the *_replay_test targets).
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "compression/block_codecs.h"
#include "tests/compression/test_data.h"
#include "tools/rockpool/elf_needed.h"
#include "tools/sst_replay/job.h"

namespace rockpool {
namespace {

using ::rockpool::testing::SemiCompressible;

// zlib_stream: with max_output == SIZE_MAX ("no limit") the first output
// buffer was max_output + 1 == 0 bytes, and every valid stream failed as
// DataLoss "truncated".
TEST(FuzzRegressionTest, DecompressStreamWithoutALimitDecodesValidStreams) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  for (size_t size : {size_t{0}, size_t{300}, size_t{200000}}) {
    const std::string input = SemiCompressible(size, size);
    for (int wb : {15, 31}) {
      std::string framed, back;
      ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, wb, &framed).ok());
      const absl::Status s =
          codecs.zlib().DecompressStream(framed, 47, std::numeric_limits<size_t>::max(), &back);
      ASSERT_TRUE(s.ok()) << size << " wb " << wb << ": " << s;
      EXPECT_EQ(back, input);
    }
  }
}

// The limit is exact: a stream of n bytes decodes with max_output n and is
// OutOfRange with n - 1, whatever the growth steps of the output buffer.
TEST(FuzzRegressionTest, DecompressStreamOutputLimitIsExact) {
  CompressionPools pools;
  BlockCodecs codecs(&pools);
  for (size_t size : {size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{100000}}) {
    const std::string input = SemiCompressible(size, size + 1);
    std::string framed, back;
    ASSERT_TRUE(codecs.zlib().CompressStream(input, 6, 31, &framed).ok());
    ASSERT_TRUE(codecs.zlib().DecompressStream(framed, 31, size, &back).ok()) << size;
    EXPECT_EQ(back, input);
    EXPECT_EQ(codecs.zlib().DecompressStream(framed, 31, size - 1, &back).code(),
              absl::StatusCode::kOutOfRange)
        << size;
  }
}

// elf_reader: a PT_LOAD segment whose file offset is near 2^64 put the
// dynamic string table there, and the check `table + n >= size` of a
// DT_NEEDED name wrapped past 2^64 back into the file: UBSan reported the
// pointer arithmetic, and the name read came from wherever the sum landed.
// Now every offset is checked against the file before any sum is formed
// (tools/process/elf_file.cc, the reader elf_needed.h goes through).
TEST(FuzzRegressionTest, ElfStringTableNearTwoToTheSixtyFourIsOutsideTheFile) {
  std::string file(0x200, '\0');
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_type = ET_DYN;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 2;
  std::memcpy(file.data(), &eh, sizeof(eh));
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_vaddr = 0;
  load.p_offset = ~uint64_t{0} - 0xfff;  // the segment "starts" 4 KiB below 2^64
  load.p_filesz = 0x1000;
  Elf64_Phdr dynamic{};
  dynamic.p_type = PT_DYNAMIC;
  dynamic.p_offset = 0x100;
  dynamic.p_filesz = 4 * sizeof(Elf64_Dyn);
  std::memcpy(file.data() + eh.e_phoff, &load, sizeof(load));
  std::memcpy(file.data() + eh.e_phoff + sizeof(load), &dynamic, sizeof(dynamic));
  const Elf64_Dyn entries[4] = {
      {DT_STRTAB, {0x10}},    // table = 2^64 - 0x1000 + 0x10
      {DT_STRSZ, {0x2000}},   // says the table is large enough
      {DT_NEEDED, {0x1000}},  // table + 0x1000 wraps to 0x10, inside the file
      {DT_NULL, {0}},
  };
  std::memcpy(file.data() + dynamic.p_offset, entries, sizeof(entries));
  absl::StatusOr<cli::ProgramFile> parsed = cli::ParseProgramFile("wrapped.so", file);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(parsed.status().message(),
            "wrapped.so: malformed ELF file: DT_NEEDED outside the string table");
}

// job_file found a job line "max_idle_per_key -4": the parser read it as an
// int64 and cast it into the uint64 field, the writer printed
// 18446744073709551612, and the parser refused that: the file did not read
// back what was written. A number out of its field's range is malformed, and
// whatever parses writes back to itself (the job file is JSON now; the rule
// is tools/json's IntegerOf).
TEST(FuzzRegressionTest, JobFieldOutOfItsRangeIsMalformedNotWrapped) {
  replay::Job job;
  job.mode = "blocks";
  job.max_idle_per_key = 8;
  const std::string text = replay::SerializeJob(job);
  const std::string field = "\"max_idle_per_key\":8";
  ASSERT_NE(text.find(field), std::string::npos) << text;
  auto with = [&](const std::string& value) {
    std::string t = text;
    return t.replace(t.find(field), field.size(), "\"max_idle_per_key\":" + value);
  };
  for (const char* bad : {"-4", "18446744073709551616", "8.0", "8e0"}) {
    absl::StatusOr<replay::Job> parsed = replay::ParseJob(with(bad));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInternal) << bad;
  }
  absl::StatusOr<replay::Job> parsed = replay::ParseJob(with("18446744073709551615"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->max_idle_per_key, 18446744073709551615u);
  absl::StatusOr<replay::Job> again = replay::ParseJob(replay::SerializeJob(*parsed));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->max_idle_per_key, parsed->max_idle_per_key);
}

}  // namespace
}  // namespace rockpool
