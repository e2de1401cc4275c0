// Fuzz target: the project's one ELF reader (tools/process/elf_file.h),
// which reads any file a user names: `rockpool check` and `rockpool run`
// through tools/rockpool/elf_needed.h, sst_replay --allocator=PATH through
// its symbol lookup. Whatever the bytes, every part answers or says
// DataLoss; names are whole C strings; the program-file answer agrees with
// the reader's, and the librocksdb dependency it finds is one of its names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "tools/process/elf_file.h"
#include "tools/rockpool/elf_needed.h"

namespace {

using rockpool::process::ElfDynamic;
using rockpool::process::ElfFile;

void CheckDataLoss(const absl::Status& s) {
  FUZZ_CHECK_MSG(s.code() == absl::StatusCode::kDataLoss, s.ToString());
  FUZZ_CHECK(!s.message().empty());
}

// The reader alone: header, dynamic section, the symbol lookup.
void DriveReader(const std::string& bytes, absl::StatusOr<ElfDynamic>* dynamic) {
  absl::StatusOr<ElfFile> elf = ElfFile::Open(bytes);
  if (!elf.ok()) {
    CheckDataLoss(elf.status());
    *dynamic = elf.status();
    return;
  }
  FUZZ_CHECK(elf->header().e_ident[EI_CLASS] == ELFCLASS64);
  *dynamic = elf->ReadDynamic();
  if (dynamic->ok()) {
    for (const std::string& n : (*dynamic)->needed) FUZZ_CHECK(n.find('\0') == std::string::npos);
    FUZZ_CHECK((*dynamic)->soname.find('\0') == std::string::npos);
    FUZZ_CHECK((*dynamic)->interpreter.find('\0') == std::string::npos);
  } else {
    CheckDataLoss(dynamic->status());
  }
  for (const char* name : {"malloc", ""}) {
    absl::StatusOr<bool> defines = elf->DefinesFunction(name);
    if (!defines.ok()) CheckDataLoss(defines.status());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ElfDynamic> dynamic = absl::UnknownError("not read");
  if (ElfFile::HasMagic(bytes)) DriveReader(bytes, &dynamic);

  absl::StatusOr<rockpool::cli::ProgramFile> file =
      rockpool::cli::ParseProgramFile("fuzz-input", bytes);
  if (!file.ok()) {
    CheckDataLoss(file.status());
    FUZZ_CHECK(file.status().message().rfind("fuzz-input: malformed ELF file: ", 0) == 0);
    FUZZ_CHECK(!dynamic.ok());  // the reader refused the same bytes
    return 0;
  }
  using Kind = rockpool::cli::ProgramFile::Kind;
  if (file->kind != Kind::kElf) FUZZ_CHECK(file->needed.empty() && file->soname.empty());
  if (file->kind == Kind::kOther) FUZZ_CHECK(file->interpreter.empty());
  if (file->kind == Kind::kElf) {
    FUZZ_CHECK(dynamic.ok());
    FUZZ_CHECK(file->needed == dynamic->needed && file->soname == dynamic->soname &&
               file->interpreter == dynamic->interpreter);
  }
  for (const std::string& n : file->needed) FUZZ_CHECK(n.find('\0') == std::string::npos);
  FUZZ_CHECK(file->soname.find('\0') == std::string::npos);
  const std::string dep = rockpool::cli::RocksdbDependency(*file);
  if (!dep.empty()) {
    bool listed = false;
    for (const std::string& n : file->needed) listed = listed || n == dep;
    FUZZ_CHECK(listed);
  }
  return 0;
}
