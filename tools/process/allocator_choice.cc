#include "tools/process/allocator_choice.h"

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
#include "tools/sst/byte_source.h"

namespace rockpool::process {
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

// This process's own ELF header: the machine a preloaded object must be
// built for. The header is all that is read of the executable.
absl::StatusOr<Elf64_Ehdr> OwnHeader() {
  std::string bytes(sizeof(Elf64_Ehdr), '\0');
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError("cannot read /proc/self/exe");
  const ssize_t n = ::pread(fd, bytes.data(), bytes.size(), 0);
  ::close(fd);
  if (n != static_cast<ssize_t>(bytes.size())) {
    return absl::InternalError("cannot read /proc/self/exe");
  }
  absl::StatusOr<ElfFile> own = ElfFile::Open(bytes);
  if (!own.ok()) return absl::InternalError("cannot read /proc/self/exe");
  return own->header();
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

}  // namespace

absl::Status CheckAllocatorObject(const std::string& path, std::string_view program) {
  absl::StatusOr<std::string> data = ReadWhole(path);
  if (!data.ok()) return data.status();
  if (!ElfFile::HasMagic(*data)) {
    return absl::InvalidArgumentError("not an ELF shared object (no ELF magic number)");
  }
  absl::StatusOr<Elf64_Ehdr> own = OwnHeader();
  if (!own.ok()) return own.status();
  // This process is ELF64 little-endian (ElfFile reads no other): an object
  // the reader refuses has another word size or byte order.
  absl::StatusOr<ElfFile> elf = ElfFile::Open(*data);
  if (!elf.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("an ELF object of another word size or byte order than this ", A(program)));
  }
  const Elf64_Ehdr& eh = elf->header();
  if (eh.e_type != ET_DYN) return absl::InvalidArgumentError(ElfTypeName(eh.e_type));
  if (eh.e_machine != own->e_machine) {
    return absl::InvalidArgumentError(absl::StrCat("built for ELF machine ", eh.e_machine,
                                                   ", this ", A(program), " runs on ",
                                                   own->e_machine));
  }
  // The errors of the reader (DataLoss, for a file the user named) become
  // the flag's InvalidArgument.
  absl::StatusOr<ElfDynamic> dynamic = elf->ReadDynamic();
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

namespace {

absl::Status Invalid(const AllocatorFlag& flag, std::string_view value, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(A(flag.flag), "=", A(value), ": ", A(message)));
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A named allocator, checked; an empty choice and `missing` set when it is
// not installed.
absl::StatusOr<AllocatorChoice> Named(const AllocatorFlag& flag, std::string_view value,
                                      const NamedAllocator& a, std::string* missing) {
  if (a.path.empty()) return AllocatorChoice{a.name, ""};
  if (!Exists(a.path)) {
    *missing = absl::StrCat(a.path, " is missing; install Debian's ", a.package);
    return AllocatorChoice{};
  }
  if (absl::Status s = CheckAllocatorObject(a.path, flag.program); !s.ok()) {
    return Invalid(flag, value,
                   absl::StrCat(a.path, ": ", s.message(), "; reinstall Debian's ", a.package));
  }
  return AllocatorChoice{a.name, a.path};
}

absl::StatusOr<AllocatorChoice> FromPath(const AllocatorFlag& flag, std::string_view value) {
  const std::string path(value);
  if (path.find_first_of(" :") != std::string::npos) {
    return Invalid(flag, value, "LD_PRELOAD cannot carry a path with a space or a colon");
  }
  if (absl::Status s = CheckAllocatorObject(path, flag.program); !s.ok()) {
    return Invalid(flag, value, std::string(s.message()));
  }
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec) return Invalid(flag, value, ec.message());
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

absl::StatusOr<AllocatorSelection> SelectAllocators(const AllocatorFlag& flag,
                                                    std::string_view value,
                                                    const std::vector<NamedAllocator>& named) {
  AllocatorSelection out;
  if (value == "all") {
    for (const NamedAllocator& a : named) {
      std::string missing;
      absl::StatusOr<AllocatorChoice> c = Named(flag, value, a, &missing);
      if (!c.ok()) return c.status();
      if (!missing.empty()) {
        out.notes.push_back(absl::StrCat(A(flag.flag), "=all: ", a.name, " left out: ", missing));
        continue;
      }
      out.allocators.push_back(*std::move(c));
    }
  } else if (value.find('/') != std::string_view::npos) {
    absl::StatusOr<AllocatorChoice> c = FromPath(flag, value);
    if (!c.ok()) return c.status();
    out.allocators.push_back(*std::move(c));
  } else {
    for (const NamedAllocator& a : named) {
      if (a.name != value) continue;
      std::string missing;
      absl::StatusOr<AllocatorChoice> c = Named(flag, value, a, &missing);
      if (!c.ok()) return c.status();
      if (!missing.empty()) return Invalid(flag, value, missing);
      out.allocators.push_back(*std::move(c));
    }
    if (out.allocators.empty()) {
      return Invalid(flag, value,
                     "want glibc, jemalloc, tcmalloc, all, or the path of a shared object (a "
                     "value with a '/')");
    }
  }
  if (SanitizerBuild() && (out.allocators.size() > 1 || !out.allocators.front().preload.empty())) {
    return Invalid(flag, value,
                   absl::StrCat("this ", A(flag.program),
                                " is a sanitizer build, whose runtime must serve malloc and "
                                "load first: no allocator can be preloaded into it (use a build "
                                "without --config=asan or --config=tsan)"));
  }
  return out;
}

}  // namespace rockpool::process
