#include "tools/process/elf_file.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rockpool::process {
namespace {

// Whether [offset, offset + size) lies inside `data`. Every offset and size
// here comes from the file, so no sum of two of them is formed before this
// check: a sum could wrap past 2^64 and point back into the file.
bool Inside(std::string_view data, uint64_t offset, uint64_t size) {
  return offset <= data.size() && size <= data.size() - offset;
}

template <typename T>
bool ReadAt(std::string_view data, uint64_t offset, T* out) {
  if (!Inside(data, offset, sizeof(T))) return false;
  std::memcpy(out, data.data() + offset, sizeof(T));
  return true;
}

absl::Status Bad(std::string_view what) {
  return absl::DataLossError(absl::string_view(what.data(), what.size()));
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

}  // namespace

bool ElfFile::HasMagic(std::string_view data) {
  return data.size() >= EI_NIDENT && std::memcmp(data.data(), ELFMAG, SELFMAG) == 0;
}

absl::StatusOr<ElfFile> ElfFile::Open(std::string_view data) {
  Elf64_Ehdr eh;
  if (!ReadAt(data, 0, &eh)) return Bad("truncated ELF header");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return Bad("not a 64-bit ELF file");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return Bad("not little-endian");
  return ElfFile(data, eh);
}

absl::StatusOr<ElfDynamic> ElfFile::ReadDynamic() const {
  const Elf64_Ehdr& eh = header_;
  ElfDynamic out;
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) return Bad("unexpected program header size");
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool has_dynamic = false;
  if (!Inside(data_, eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr))) {
    return Bad("program headers outside the file");
  }
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    ReadAt(data_, eh.e_phoff + i * sizeof(Elf64_Phdr), &ph);  // inside: checked above
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_INTERP) {
      if (!Inside(data_, ph.p_offset, ph.p_filesz)) return Bad("PT_INTERP outside the file");
      const char* begin = data_.data() + ph.p_offset;
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
  if (!Inside(data_, dynamic.p_offset, dynamic.p_filesz)) {
    return Bad("dynamic section outside the file");
  }
  for (uint64_t i = 0; i < dynamic.p_filesz / sizeof(Elf64_Dyn); ++i) {
    Elf64_Dyn d;
    ReadAt(data_, dynamic.p_offset + i * sizeof(Elf64_Dyn), &d);  // inside: checked above
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) needed_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_SONAME) soname_offset = d.d_un.d_val;
    if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE) != 0) out.pie = true;
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_ptr;
      has_strtab = true;
    }
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
  }
  if (needed_offsets.empty() && !soname_offset.has_value()) return out;
  uint64_t table = 0;
  if (!has_strtab || !FileOffset(loads, strtab, &table)) {
    return Bad("no string table for DT_NEEDED");
  }
  // The name at offset n of the dynamic string table.
  auto name = [&](uint64_t n, const char* tag) -> absl::StatusOr<std::string> {
    if (n >= strsz || !Inside(data_, table, n + 1)) {  // n + 1: the name's first byte
      return Bad(absl::StrCat(tag, " outside the string table"));
    }
    const char* begin = data_.data() + table + n;
    const size_t max = std::min<uint64_t>(strsz - n, data_.size() - table - n);
    const size_t len = strnlen(begin, max);
    if (len == max) return Bad(absl::StrCat("unterminated ", tag, " name"));
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

absl::StatusOr<bool> ElfFile::DefinesFunction(std::string_view wanted) const {
  const Elf64_Ehdr& eh = header_;
  if (eh.e_shoff == 0 || eh.e_shnum == 0) return true;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !Inside(data_, eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) {
    return Bad("truncated or damaged ELF section headers");
  }
  auto section = [&](uint64_t i) {
    Elf64_Shdr sh;
    ReadAt(data_, eh.e_shoff + i * sizeof(Elf64_Shdr), &sh);  // inside: checked above
    return sh;
  };
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= eh.e_shnum) continue;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    if (!Inside(data_, symtab.sh_offset, symtab.sh_size) ||
        !Inside(data_, strtab.sh_offset, strtab.sh_size)) {
      return Bad("truncated ELF symbol table");
    }
    for (uint64_t off = 0; symtab.sh_size - off >= sizeof(Elf64_Sym); off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      ReadAt(data_, symtab.sh_offset + off, &sym);  // inside: checked above
      const int type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
          sym.st_name >= strtab.sh_size) {
        continue;
      }
      const char* name = data_.data() + strtab.sh_offset + sym.st_name;
      const size_t room = strtab.sh_size - sym.st_name;
      if (std::string_view(name, strnlen(name, room)) == wanted) return true;
    }
    return false;
  }
  return false;  // no dynamic symbols at all
}

}  // namespace rockpool::process
