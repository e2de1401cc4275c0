#include "tools/rockpool/elf_needed.h"

#include <elf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace rockpool::cli {
namespace {

template <typename T>
bool ReadAt(const std::string& data, uint64_t offset, T* out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
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
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!ReadAt(data, eh.e_phoff + i * sizeof(Elf64_Phdr), &ph)) {
      return Bad(path, "program headers outside the file");
    }
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) {
      dynamic = ph;
      has_dynamic = true;
    }
  }
  if (!has_dynamic) return out;  // statically linked: needs nothing
  std::vector<uint64_t> needed_offsets;
  uint64_t strtab = 0;
  uint64_t strsz = 0;
  bool has_strtab = false;
  for (uint64_t off = dynamic.p_offset; off < dynamic.p_offset + dynamic.p_filesz;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    if (!ReadAt(data, off, &d)) return Bad(path, "dynamic section outside the file");
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) needed_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_ptr;
      has_strtab = true;
    }
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
  }
  if (needed_offsets.empty()) return out;
  uint64_t table = 0;
  if (!has_strtab || !FileOffset(loads, strtab, &table)) {
    return Bad(path, "no string table for DT_NEEDED");
  }
  for (uint64_t n : needed_offsets) {
    if (n >= strsz || table + n >= data.size())
      return Bad(path, "DT_NEEDED outside the string table");
    const char* begin = data.data() + table + n;
    const size_t max = std::min<uint64_t>(strsz - n, data.size() - table - n);
    const size_t len = strnlen(begin, max);
    if (len == max) return Bad(path, "unterminated DT_NEEDED name");
    out.needed.emplace_back(begin, len);
  }
  return out;
}

}  // namespace

absl::StatusOr<ProgramFile> ReadProgramFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    const std::string message = absl::StrCat(path, ": ", std::strerror(e));
    if (e == EACCES) return absl::PermissionDeniedError(message);
    return absl::NotFoundError(message);
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
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
