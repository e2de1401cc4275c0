// What kind of file a program is and, for an ELF64 file, the libraries its
// dynamic section names (DT_NEEDED), read by tools/process/elf_file.h: no
// tool is run and nothing is loaded. `rockpool run` and `rockpool check` use
// it to pick the preload object (the program links librocksdb.so) or the
// interposer.
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_ELF_NEEDED_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_ELF_NEEDED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rockpool::cli {

struct ProgramFile {
  enum class Kind {
    kElf,     // an ELF64 file; `needed` lists its DT_NEEDED entries (empty if static)
    kScript,  // starts with "#!"; `interpreter` is the rest of that line
    kOther,   // neither (32-bit ELF included): nothing known about it
  };
  Kind kind = Kind::kOther;
  std::vector<std::string> needed;
  // A script's "#!" line; an ELF file's PT_INTERP, its dynamic loader ("" if none).
  std::string interpreter;
  std::string soname;  // an ELF file's DT_SONAME ("" if none)
};

// Programs larger than this are not read (a RocksDB server binary with its
// debug information is a few hundred MiB).
inline constexpr uint64_t kMaxProgramBytes = uint64_t{1} << 30;

// Reads `path`. NotFound / PermissionDenied when it cannot be opened,
// InvalidArgument when it is not a regular file (a directory, a FIFO, a
// device: never blocks) or over kMaxProgramBytes, DataLoss for an ELF64
// file whose headers or dynamic section point outside the file.
absl::StatusOr<ProgramFile> ReadProgramFile(const std::string& path);

// What the bytes `data` of the file `path` (for messages) are, as
// ReadProgramFile says; the parser of untrusted bytes its fuzzer drives.
absl::StatusOr<ProgramFile> ParseProgramFile(const std::string& path, const std::string& data);

// The first DT_NEEDED entry naming librocksdb.so ("librocksdb.so.7.8"), or "".
std::string RocksdbDependency(const ProgramFile& file);

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_ELF_NEEDED_H_
