// An ELF64 little-endian file read from its bytes with <elf.h> only: no
// tool is run and nothing is loaded. It reads untrusted bytes (any file a
// user names): every offset and size comes from the file and is checked
// against it before it is added to another, so no sum can wrap past 2^64
// back into the file; a malformed file is a DataLoss error saying what is
// malformed, never a read outside the bytes. tests/fuzz's elf_reader
// target drives all of it.
//
// `rockpool run` and `rockpool check` read a program's dynamic section
// (DT_NEEDED, PT_INTERP, DT_SONAME) to choose the object to preload;
// allocator_choice.h (sst_replay --allocator=PATH) reads the header and the
// dynamic symbols to check that PATH is a shared object defining malloc.
#ifndef ROCKPOOL_TOOLS_PROCESS_ELF_FILE_H_
#define ROCKPOOL_TOOLS_PROCESS_ELF_FILE_H_

#include <elf.h>

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rockpool::process {

// What the program headers and the dynamic section say about loading.
struct ElfDynamic {
  std::vector<std::string> needed;  // DT_NEEDED entries, in order (empty if static)
  std::string interpreter;          // PT_INTERP, the dynamic loader ("" if none)
  std::string soname;               // DT_SONAME ("" if none)
  bool pie = false;  // DT_FLAGS_1 has DF_1_PIE: an executable, which the loader cannot preload
};

class ElfFile {
 public:
  // True if `data` is long enough for an identification and starts with
  // the ELF magic number.
  static bool HasMagic(std::string_view data);

  // The header of an ELF64 little-endian file. DataLoss "truncated ELF
  // header", "not a 64-bit ELF file" or "not little-endian". `data` must
  // outlive the ElfFile (it is not copied).
  static absl::StatusOr<ElfFile> Open(std::string_view data);

  const Elf64_Ehdr& header() const { return header_; }

  // The program headers and the dynamic section they point to. DataLoss
  // naming what lies outside the file or the string table.
  absl::StatusOr<ElfDynamic> ReadDynamic() const;

  // Whether the dynamic symbol table (found through the section headers)
  // defines a function `name` (STT_FUNC or STT_GNU_IFUNC). True when the
  // file has no section headers to tell; false without a dynamic symbol
  // table. DataLoss "truncated or damaged ELF section headers" or
  // "truncated ELF symbol table".
  absl::StatusOr<bool> DefinesFunction(std::string_view name) const;

 private:
  ElfFile(std::string_view data, const Elf64_Ehdr& header) : data_(data), header_(header) {}

  std::string_view data_;
  Elf64_Ehdr header_;
};

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_ELF_FILE_H_
