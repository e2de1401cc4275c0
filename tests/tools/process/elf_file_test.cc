// tools/process/elf_file.h on real Debian files: a program (gzip, a
// position-independent executable), a library (zlib: its soname, the
// functions it defines and not), and damaged headers. The fuzz target
// (tests/fuzz, elf_reader) covers arbitrary bytes.
#include "tools/process/elf_file.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

using ::testing::Contains;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ElfFileTest, GzipIsAPositionIndependentExecutable) {
  const std::string data = ReadAll("/bin/gzip");
  ASSERT_TRUE(ElfFile::HasMagic(data));
  absl::StatusOr<ElfFile> elf = ElfFile::Open(data);
  ASSERT_TRUE(elf.ok()) << elf.status();
  absl::StatusOr<ElfDynamic> dynamic = elf->ReadDynamic();
  ASSERT_TRUE(dynamic.ok()) << dynamic.status();
  EXPECT_THAT(dynamic->needed, Contains("libc.so.6"));
  EXPECT_EQ(dynamic->interpreter, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_EQ(dynamic->soname, "");
  EXPECT_TRUE(dynamic->pie);
}

TEST(ElfFileTest, ZlibDefinesDeflateButNotMalloc) {
  const std::string data = ReadAll("/lib/x86_64-linux-gnu/libz.so.1");
  absl::StatusOr<ElfFile> elf = ElfFile::Open(data);
  ASSERT_TRUE(elf.ok()) << elf.status();
  EXPECT_EQ(elf->header().e_type, ET_DYN);
  absl::StatusOr<ElfDynamic> dynamic = elf->ReadDynamic();
  ASSERT_TRUE(dynamic.ok()) << dynamic.status();
  EXPECT_EQ(dynamic->soname, "libz.so.1");
  EXPECT_FALSE(dynamic->pie);
  EXPECT_EQ(elf->DefinesFunction("deflate").value_or(false), true);
  EXPECT_EQ(elf->DefinesFunction("malloc").value_or(true), false);  // libz only calls it
  EXPECT_EQ(elf->DefinesFunction("deflat").value_or(true), false);  // whole names only
}

TEST(ElfFileTest, DamagedHeadersAreDataLoss) {
  std::string data = ReadAll("/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ(ElfFile::Open(data.substr(0, 20)).status().message(), "truncated ELF header");
  std::string other = data;
  other[EI_CLASS] = ELFCLASS32;
  EXPECT_EQ(ElfFile::Open(other).status().message(), "not a 64-bit ELF file");
  // Section headers said to lie past the end of the file.
  Elf64_Ehdr eh;
  std::memcpy(&eh, data.data(), sizeof(eh));
  eh.e_shoff = data.size() - 8;
  std::memcpy(data.data(), &eh, sizeof(eh));
  absl::StatusOr<ElfFile> elf = ElfFile::Open(data);
  ASSERT_TRUE(elf.ok()) << elf.status();
  EXPECT_EQ(elf->DefinesFunction("malloc").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(elf->DefinesFunction("malloc").status().message(),
            "truncated or damaged ELF section headers");
  // Program headers past the end.
  eh.e_phoff = ~uint64_t{0} - 8;
  std::memcpy(data.data(), &eh, sizeof(eh));
  elf = ElfFile::Open(data);
  ASSERT_TRUE(elf.ok()) << elf.status();
  EXPECT_EQ(elf->ReadDynamic().status().message(), "program headers outside the file");
}

}  // namespace
}  // namespace rockpool::process
