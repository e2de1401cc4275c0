#include "tools/rockpool/elf_needed.h"

#include <elf.h>

#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "tools/sst/byte_source.h"

namespace rockpool::cli {
namespace {

// Whether [offset, offset + size) lies inside `data`. Every offset and size
// here comes from the file, so no sum of two of them is formed before this
// check: a sum could wrap past 2^64 and point back into the file.
bool Inside(const std::string& data, uint64_t offset, uint64_t size) {
  return offset <= data.size() && size <= data.size() - offset;
}

template <typename T>
bool ReadAt(const std::string& data, uint64_t offset, T* out) {
  if (!Inside(data, offset, sizeof(T))) return false;
  std::memcpy(out, data.data() + offset, sizeof(T));
  return true;
}

absl::Status Bad(const std::string& path, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(path, ": malformed ELF file: ", what));
}

// The file offset of virtual address `vaddr`, through the PT_LOAD segments.
bool FileOffset(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr, uint64_t* offset) {
  for (const Elf64_Phdr& p : loads) {
    if (vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz) {
      if (p.p_offset > UINT64_MAX - (vaddr - p.p_vaddr)) return false;
      *offset = p.p_offset + (vaddr - p.p_vaddr);
      return true;
    }
  }
  return false;
}

absl::StatusOr<ProgramFile> ParseElf64(const std::string& path, const std::string& data) {
  ProgramFile out;
  out.kind = ProgramFile::Kind::kElf;
  Elf64_Ehdr eh;
  if (!ReadAt(data, 0, &eh)) return Bad(path, "truncated ELF header");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return Bad(path, "not little-endian");
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) return Bad(path, "unexpected program header size");
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool has_dynamic = false;
  if (!Inside(data, eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr))) {
    return Bad(path, "program headers outside the file");
  }
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    ReadAt(data, eh.e_phoff + i * sizeof(Elf64_Phdr), &ph);  // inside: checked above
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_INTERP) {
      if (!Inside(data, ph.p_offset, ph.p_filesz)) {
        return Bad(path, "PT_INTERP outside the file");
      }
      const char* begin = data.data() + ph.p_offset;
      out.interpreter.assign(begin, strnlen(begin, ph.p_filesz));
    }
    if (ph.p_type == PT_DYNAMIC) {
      dynamic = ph;
      has_dynamic = true;
    }
  }
  if (!has_dynamic) return out;  // statically linked: needs nothing
  std::vector<uint64_t> needed_offsets;
  std::optional<uint64_t> soname_offset;
  uint64_t strtab = 0;
  uint64_t strsz = 0;
  bool has_strtab = false;
  if (!Inside(data, dynamic.p_offset, dynamic.p_filesz)) {
    return Bad(path, "dynamic section outside the file");
  }
  for (uint64_t i = 0; i < dynamic.p_filesz / sizeof(Elf64_Dyn); ++i) {
    Elf64_Dyn d;
    ReadAt(data, dynamic.p_offset + i * sizeof(Elf64_Dyn), &d);  // inside: checked above
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) needed_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_SONAME) soname_offset = d.d_un.d_val;
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_ptr;
      has_strtab = true;
    }
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
  }
  if (needed_offsets.empty() && !soname_offset.has_value()) return out;
  uint64_t table = 0;
  if (!has_strtab || !FileOffset(loads, strtab, &table)) {
    return Bad(path, "no string table for DT_NEEDED");
  }
  // The name at offset n of the dynamic string table.
  auto name = [&](uint64_t n, const char* tag) -> absl::StatusOr<std::string> {
    if (n >= strsz || !Inside(data, table, n + 1)) {  // n + 1: the name's first byte
      return Bad(path, absl::StrCat(tag, " outside the string table"));
    }
    const char* begin = data.data() + table + n;
    const size_t max = std::min<uint64_t>(strsz - n, data.size() - table - n);
    const size_t len = strnlen(begin, max);
    if (len == max) return Bad(path, absl::StrCat("unterminated ", tag, " name"));
    return std::string(begin, len);
  };
  for (uint64_t n : needed_offsets) {
    absl::StatusOr<std::string> needed = name(n, "DT_NEEDED");
    if (!needed.ok()) return needed.status();
    out.needed.push_back(*std::move(needed));
  }
  if (soname_offset.has_value()) {
    absl::StatusOr<std::string> soname = name(*soname_offset, "DT_SONAME");
    if (!soname.ok()) return soname.status();
    out.soname = *std::move(soname);
  }
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
  if (data.size() >= EI_NIDENT && std::memcmp(data.data(), ELFMAG, SELFMAG) == 0 &&
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
