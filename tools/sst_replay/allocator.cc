#include "tools/sst_replay/allocator.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tools/process/active_allocator.h"
#include "tools/sst/byte_source.h"

namespace rockpool::replay {
namespace {

absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Larger objects are not allocators: refuse rather than read them whole.
constexpr uint64_t kMaxObjectBytes = uint64_t{512} << 20;

// The object's bytes; errors without the path (the callers name it).
absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  absl::StatusOr<std::string> data = sst::ReadWholeFile(path, kMaxObjectBytes);
  if (data.ok()) return data;
  absl::string_view why = data.status().message();
  absl::ConsumePrefix(&why, absl::StrCat(path, ": "));
  return absl::Status(data.status().code(), why);
}

// This process's own ELF header: the class and machine a preloaded object
// must have.
bool OwnHeader(Elf64_Ehdr* out) {
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::pread(fd, out, sizeof(*out), 0) == static_cast<ssize_t>(sizeof(*out));
  ::close(fd);
  return ok;
}

const char* ElfTypeName(uint16_t type) {
  switch (type) {
    case ET_REL:
      return "an object file to link, not a shared object";
    case ET_EXEC:
      return "an executable, not a shared object";
    case ET_CORE:
      return "a core dump";
    default:
      return "not a shared object";
  }
}

// Whether the dynamic symbol table defines malloc (an error for an
// executable); true when the object has no section headers to tell (the
// child's check still runs).
absl::StatusOr<bool> DefinesMalloc(const std::string& data, const Elf64_Ehdr& eh) {
  if (eh.e_shoff == 0 || eh.e_shnum == 0) return true;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > data.size() ||
      (data.size() - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum) {
    return absl::InvalidArgumentError("truncated or damaged ELF section headers");
  }
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
    return sh;
  };
  auto inside = [&](const Elf64_Shdr& sh) {
    return sh.sh_offset <= data.size() && sh.sh_size <= data.size() - sh.sh_offset;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr dynamic = section(i);
    if (dynamic.sh_type != SHT_DYNAMIC || !inside(dynamic)) continue;
    // The loader refuses to preload a position-independent executable.
    for (size_t off = 0; off + sizeof(Elf64_Dyn) <= dynamic.sh_size; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn dyn;
      std::memcpy(&dyn, data.data() + dynamic.sh_offset + off, sizeof(dyn));
      if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE) != 0) {
        return absl::InvalidArgumentError(
            "a position-independent executable, not a shared object (the loader cannot preload "
            "it)");
      }
    }
  }
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= eh.e_shnum) continue;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    if (!inside(symtab) || !inside(strtab)) {
      return absl::InvalidArgumentError("truncated ELF symbol table");
    }
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, data.data() + symtab.sh_offset + off, sizeof(sym));
      const int type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
          sym.st_name >= strtab.sh_size) {
        continue;
      }
      const char* name = data.data() + strtab.sh_offset + sym.st_name;
      const size_t room = strtab.sh_size - sym.st_name;
      if (strnlen(name, room) == 6 && std::memcmp(name, "malloc", 6) == 0) return true;
    }
    return false;
  }
  return false;  // no dynamic symbols at all
}

absl::Status CheckObject(const std::string& path) {
  absl::StatusOr<std::string> data = ReadWhole(path);
  if (!data.ok()) return data.status();
  Elf64_Ehdr eh;
  if (data->size() < EI_NIDENT || std::memcmp(data->data(), ELFMAG, SELFMAG) != 0) {
    return absl::InvalidArgumentError("not an ELF shared object (no ELF magic number)");
  }
  Elf64_Ehdr own;
  if (!OwnHeader(&own)) return absl::InternalError("cannot read /proc/self/exe");
  if (static_cast<unsigned char>((*data)[EI_CLASS]) != own.e_ident[EI_CLASS] ||
      static_cast<unsigned char>((*data)[EI_DATA]) != own.e_ident[EI_DATA] ||
      data->size() < sizeof(eh)) {
    return absl::InvalidArgumentError(
        "an ELF object of another word size or byte order than this sst_replay");
  }
  std::memcpy(&eh, data->data(), sizeof(eh));
  if (eh.e_type != ET_DYN) return absl::InvalidArgumentError(ElfTypeName(eh.e_type));
  if (eh.e_machine != own.e_machine) {
    return absl::InvalidArgumentError(absl::StrCat("built for ELF machine ", eh.e_machine,
                                                   ", this sst_replay runs on ", own.e_machine));
  }
  absl::StatusOr<bool> malloc = DefinesMalloc(*data, eh);
  if (!malloc.ok()) return malloc.status();
  if (!*malloc) {
    return absl::InvalidArgumentError(
        "a shared object that defines no malloc: not an allocator, the children's malloc would "
        "stay glibc's");
  }
  return absl::OkStatus();
}

absl::Status Invalid(std::string_view flag, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("--allocator=", A(flag), ": ", A(message)));
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A named allocator, checked; an empty choice and `missing` set when it is
// not installed.
absl::StatusOr<AllocatorChoice> Named(std::string_view flag, const NamedAllocator& a,
                                      std::string* missing) {
  if (a.path.empty()) return AllocatorChoice{a.name, ""};
  if (!Exists(a.path)) {
    *missing = absl::StrCat(a.path, " is missing; install Debian's ", a.package);
    return AllocatorChoice{};
  }
  if (absl::Status s = CheckObject(a.path); !s.ok()) {
    return Invalid(flag,
                   absl::StrCat(a.path, ": ", s.message(), "; reinstall Debian's ", a.package));
  }
  return AllocatorChoice{a.name, a.path};
}

absl::StatusOr<AllocatorChoice> FromPath(std::string_view flag) {
  const std::string path(flag);
  if (path.find_first_of(" :") != std::string::npos) {
    return Invalid(flag, "LD_PRELOAD cannot carry a path with a space or a colon");
  }
  if (absl::Status s = CheckObject(path); !s.ok()) return Invalid(flag, std::string(s.message()));
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec) return Invalid(flag, ec.message());
  return AllocatorChoice{absolute.filename().string(), absolute.string()};
}

}  // namespace

const std::vector<NamedAllocator>& NamedAllocators() {
  static const std::vector<NamedAllocator> named = {
      {"glibc", "", "libc6"},
      {"jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "libjemalloc2"},
      {"tcmalloc", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"},
  };
  return named;
}

absl::Status CheckAllocatorObject(const std::string& path) { return CheckObject(path); }

absl::StatusOr<AllocatorSelection> SelectAllocators(std::string_view flag) {
  return SelectAllocators(flag, NamedAllocators());
}

absl::StatusOr<AllocatorSelection> SelectAllocators(std::string_view flag,
                                                    const std::vector<NamedAllocator>& named) {
  AllocatorSelection out;
  if (flag == "all") {
    for (const NamedAllocator& a : named) {
      std::string missing;
      absl::StatusOr<AllocatorChoice> c = Named(flag, a, &missing);
      if (!c.ok()) return c.status();
      if (!missing.empty()) {
        out.notes.push_back(absl::StrCat("--allocator=all: ", a.name, " left out: ", missing));
        continue;
      }
      out.allocators.push_back(*std::move(c));
    }
  } else if (flag.find('/') != std::string_view::npos) {
    absl::StatusOr<AllocatorChoice> c = FromPath(flag);
    if (!c.ok()) return c.status();
    out.allocators.push_back(*std::move(c));
  } else {
    for (const NamedAllocator& a : named) {
      if (a.name != flag) continue;
      std::string missing;
      absl::StatusOr<AllocatorChoice> c = Named(flag, a, &missing);
      if (!c.ok()) return c.status();
      if (!missing.empty()) return Invalid(flag, missing);
      out.allocators.push_back(*std::move(c));
    }
    if (out.allocators.empty()) {
      return Invalid(flag,
                     "want glibc, jemalloc, tcmalloc, all, or the path of a shared object (a "
                     "value with a '/')");
    }
  }
  if (process::SanitizerBuild() && (out.allocators.size() > 1 || !out.allocators.front().preload.empty())) {
    return Invalid(flag,
                   "this sst_replay is a sanitizer build, whose runtime must serve malloc and "
                   "load first: no allocator can be preloaded into it (use a build without "
                   "--config=asan or --config=tsan)");
  }
  return out;
}

std::string ChildPreload(const std::string& allocator, std::string_view inherited) {
  if (allocator.empty()) return std::string(inherited);
  if (inherited.empty()) return allocator;
  return absl::StrCat(allocator, " ", A(inherited));
}

}  // namespace rockpool::replay
