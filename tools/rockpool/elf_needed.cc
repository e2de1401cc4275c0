#include "tools/rockpool/elf_needed.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "tools/process/elf_file.h"
#include "tools/sst/byte_source.h"

namespace rockpool::cli {
namespace {

absl::Status Bad(const std::string& path, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(path, ": malformed ELF file: ", what));
}

// An ELF64 file's names, through the project's one ELF reader.
absl::StatusOr<ProgramFile> ParseElf64(const std::string& path, const std::string& data) {
  absl::StatusOr<process::ElfFile> elf = process::ElfFile::Open(data);
  if (!elf.ok()) return Bad(path, elf.status().message());
  absl::StatusOr<process::ElfDynamic> dynamic = elf->ReadDynamic();
  if (!dynamic.ok()) return Bad(path, dynamic.status().message());
  ProgramFile out;
  out.kind = ProgramFile::Kind::kElf;
  out.needed = std::move(dynamic->needed);
  out.interpreter = std::move(dynamic->interpreter);
  out.soname = std::move(dynamic->soname);
  return out;
}

}  // namespace

absl::StatusOr<ProgramFile> ReadProgramFile(const std::string& path) {
  absl::StatusOr<std::string> data = sst::ReadWholeFile(path, kMaxProgramBytes);
  if (!data.ok()) return data.status();
  return ParseProgramFile(path, *data);
}

absl::StatusOr<ProgramFile> ParseProgramFile(const std::string& path, const std::string& data) {
  if (absl::StartsWith(data, "#!")) {
    ProgramFile out;
    out.kind = ProgramFile::Kind::kScript;
    const size_t end = data.find('\n');
    out.interpreter = std::string(absl::StripAsciiWhitespace(
        absl::string_view(data).substr(2, end == std::string::npos ? std::string::npos : end - 2)));
    return out;
  }
  if (process::ElfFile::HasMagic(data) &&
      static_cast<unsigned char>(data[EI_CLASS]) == ELFCLASS64) {
    return ParseElf64(path, data);
  }
  return ProgramFile{};
}

std::string RocksdbDependency(const ProgramFile& file) {
  for (const std::string& n : file.needed) {
    if (absl::StartsWith(n, "librocksdb.so")) return n;
  }
  return "";
}

}  // namespace rockpool::cli
