// Fuzz target: the ELF reader of `rockpool check` and `rockpool run`
// (tools/rockpool/elf_needed.h), which reads any file it is given. Whatever
// the bytes, it answers a kind or a DataLoss error naming the file; an ELF
// answer's names are whole C strings, and the librocksdb dependency it finds
// is one of them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "tools/rockpool/elf_needed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rockpool::cli::ProgramFile> file =
      rockpool::cli::ParseProgramFile("fuzz-input", bytes);
  if (!file.ok()) {
    FUZZ_CHECK_MSG(file.status().code() == absl::StatusCode::kDataLoss, file.status().ToString());
    FUZZ_CHECK(file.status().message().rfind("fuzz-input: ", 0) == 0);
    return 0;
  }
  using Kind = rockpool::cli::ProgramFile::Kind;
  if (file->kind != Kind::kElf) FUZZ_CHECK(file->needed.empty() && file->soname.empty());
  if (file->kind == Kind::kOther) FUZZ_CHECK(file->interpreter.empty());
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
