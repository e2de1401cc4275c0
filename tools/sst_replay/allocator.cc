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
#include "tools/process/elf_file.h"
#include "tools/process/preload_list.h"
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

absl::Status CheckObject(const std::string& path) {
  absl::StatusOr<std::string> data = ReadWhole(path);
  if (!data.ok()) return data.status();
  if (!process::ElfFile::HasMagic(*data)) {
    return absl::InvalidArgumentError("not an ELF shared object (no ELF magic number)");
  }
  Elf64_Ehdr own;
  if (!OwnHeader(&own)) return absl::InternalError("cannot read /proc/self/exe");
  absl::StatusOr<process::ElfFile> elf = process::ElfFile::Open(*data);
  if (static_cast<unsigned char>((*data)[EI_CLASS]) != own.e_ident[EI_CLASS] ||
      static_cast<unsigned char>((*data)[EI_DATA]) != own.e_ident[EI_DATA] || !elf.ok()) {
    return absl::InvalidArgumentError(
        "an ELF object of another word size or byte order than this sst_replay");
  }
  const Elf64_Ehdr& eh = elf->header();
  if (eh.e_type != ET_DYN) return absl::InvalidArgumentError(ElfTypeName(eh.e_type));
  if (eh.e_machine != own.e_machine) {
    return absl::InvalidArgumentError(absl::StrCat("built for ELF machine ", eh.e_machine,
                                                   ", this sst_replay runs on ", own.e_machine));
  }
  // The errors of the reader (DataLoss, for a file the user named) become
  // the flag's InvalidArgument.
  absl::StatusOr<process::ElfDynamic> dynamic = elf->ReadDynamic();
  if (!dynamic.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ELF file: ", dynamic.status().message()));
  }
  // The loader refuses to preload a position-independent executable.
  if (dynamic->pie) {
    return absl::InvalidArgumentError(
        "a position-independent executable, not a shared object (the loader cannot preload it)");
  }
  // True as well when the object has no section headers to tell: the
  // child's check still runs.
  absl::StatusOr<bool> malloc = elf->DefinesFunction("malloc");
  if (!malloc.ok()) return absl::InvalidArgumentError(malloc.status().message());
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
  if (process::SanitizerBuild() &&
      (out.allocators.size() > 1 || !out.allocators.front().preload.empty())) {
    return Invalid(flag,
                   "this sst_replay is a sanitizer build, whose runtime must serve malloc and "
                   "load first: no allocator can be preloaded into it (use a build without "
                   "--config=asan or --config=tsan)");
  }
  return out;
}

std::string ChildPreload(const std::string& allocator, std::string_view inherited) {
  return process::PreloadFirst(allocator, inherited);
}

}  // namespace rockpool::replay
