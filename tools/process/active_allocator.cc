#include "tools/process/active_allocator.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/process/malloc_counts.h"

namespace rockpool::process {
namespace {

// The test allocation: large enough to stand out in any allocator's
// statistics, below glibc's mmap threshold.
constexpr size_t kProbeBytes = size_t{64} << 10;

using MallocFn = void* (*)(size_t);
using FreeFn = void (*)(void*);

struct Object {
  std::string path;
  const void* base = nullptr;
};

Object ObjectOf(const void* fn) {
  Dl_info info;
  if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_fname == nullptr) return {};
  return Object{info.dli_fname, info.dli_fbase};
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A symbol of the process, only if it lives in `o`.
template <typename Fn>
Fn SymbolIn(const char* name, const Object& o) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (f == nullptr || ObjectOf(f).base != o.base) return nullptr;
  return reinterpret_cast<Fn>(f);
}

// A test allocation through the process's malloc and free (the ones every
// library binds to: the counter's, which forward to the serving allocator);
// `measure` is called while the block is live.
template <typename Measure>
void WithProbe(Measure measure) {
  auto process_malloc = reinterpret_cast<MallocFn>(dlsym(RTLD_DEFAULT, "malloc"));
  auto process_free = reinterpret_cast<FreeFn>(dlsym(RTLD_DEFAULT, "free"));
  void* volatile p = process_malloc(kProbeBytes);
  measure(p);
  process_free(p);
}

// The probe reached `allocator` if `statistic` rose by its size.
void JudgeRise(uint64_t rose, const char* allocator, const char* statistic, ActiveAllocator* a) {
  if (rose < kProbeBytes) {
    a->problem = absl::StrCat("a 64 KiB malloc through the process's malloc did not reach ",
                              allocator, " (", statistic, " rose by ", rose, " bytes)");
  } else {
    a->evidence = absl::StrCat("a 64 KiB malloc through the process's malloc raised ", statistic,
                               " by ", rose, " bytes");
  }
}

bool ProbeJemalloc(const Object& o, ActiveAllocator* a) {
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  const Mallctl mallctl = SymbolIn<Mallctl>("mallctl", o);
  if (mallctl == nullptr) return false;
  a->name = "jemalloc";
  const char* version = nullptr;
  size_t len = sizeof(version);
  if (mallctl("version", &version, &len, nullptr, 0) == 0 && version != nullptr) {
    a->version = version;  // "5.3.0-0-g<commit>": the release is enough
    a->version.erase(std::min(a->version.find('-'), a->version.size()));
  }
  uint64_t before = 0;
  uint64_t after = 0;
  size_t size = sizeof(uint64_t);
  if (mallctl("thread.allocated", &before, &size, nullptr, 0) != 0) {
    a->problem = "jemalloc's mallctl(\"thread.allocated\") fails (built without statistics?)";
    return true;
  }
  WithProbe([&](void*) { mallctl("thread.allocated", &after, &size, nullptr, 0); });
  JudgeRise(after - before, "jemalloc", "jemalloc's thread.allocated", a);
  return true;
}

bool ProbeTcmalloc(const Object& o, ActiveAllocator* a) {
  using TcVersion = const char* (*)(int*, int*, const char**);
  using Ownership = int (*)(const void*);
  const TcVersion tc_version = SymbolIn<TcVersion>("tc_version", o);
  if (tc_version == nullptr) return false;
  a->name = "tcmalloc";
  int major = 0;
  int minor = 0;
  const char* patch = nullptr;
  tc_version(&major, &minor, &patch);  // its text is "gperftools 2.10"
  a->version = absl::StrCat(major, ".", minor, patch != nullptr ? patch : "");
  const Ownership ownership = SymbolIn<Ownership>("MallocExtension_GetOwnership", o);
  if (ownership == nullptr) {
    a->problem = "tcmalloc without MallocExtension_GetOwnership: cannot confirm it serves malloc";
    return true;
  }
  int owned = 0;
  WithProbe([&](void* p) { owned = ownership(p); });
  if (owned != 1) {  // MallocExtension_Ownership: 1 = owned
    a->problem = absl::StrCat(
        "tcmalloc does not own a block from the process's malloc (GetOwnership: ", owned, ")");
  } else {
    a->evidence = "tcmalloc owns a 64 KiB block from the process's malloc (GetOwnership)";
  }
  return true;
}

bool ProbeGlibc(const Object& o, ActiveAllocator* a) {
  if (Basename(o.path).rfind("libc.so", 0) != 0) return false;
  a->name = "glibc";
  a->version = gnu_get_libc_version();
  auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  const size_t before = in_use();
  size_t during = before;
  WithProbe([&](void*) { during = in_use(); });
  JudgeRise(during > before ? during - before : 0, "glibc's heap", "glibc's mallinfo2 bytes in use",
            a);
  return true;
}

// Every function the counter forwards to must come from the object that
// serves malloc: blocks of one allocator freed by another corrupt both.
std::string MixedForwarding(const MallocForward& f, const Object& o) {
  const std::pair<const char*, const void*> fns[] = {
      {"free", f.free}, {"calloc", f.calloc}, {"realloc", f.realloc}, {"memalign", f.memalign}};
  for (const auto& [name, fn] : fns) {
    const Object other = ObjectOf(fn);
    if (other.base != o.base) {
      return absl::StrCat("malloc comes from ", o.path, " but ", name, " from ", other.path,
                          ": an allocator must define both");
    }
  }
  return "";
}

}  // namespace

ActiveAllocator DetectActiveAllocator() {
  ActiveAllocator a;
  const MallocForward forward = ReadMallocForward();
  const void* serving = forward.malloc != nullptr ? forward.malloc : dlsym(RTLD_DEFAULT, "malloc");
  const Object o = ObjectOf(serving);
  a.object = o.path;
  if (o.base == nullptr) {
    a.name = "unknown";
    a.problem = "cannot tell which object serves malloc (dladdr failed)";
    return a;
  }
  if (SanitizerBuild()) {
    a.name = "sanitizer runtime";
    a.evidence = "a sanitizer build: its runtime serves malloc";
    return a;
  }
  if (!ProbeJemalloc(o, &a) && !ProbeTcmalloc(o, &a) && !ProbeGlibc(o, &a)) {
    a.name = Basename(o.path);
    a.evidence = "no probe for this allocator: malloc resolves to it";
  }
  if (forward.malloc != nullptr) {
    if (std::string mixed = MixedForwarding(forward, o); !mixed.empty() && a.problem.empty()) {
      a.problem = mixed;
    }
    absl::StrAppend(&a.evidence, "; the malloc counter forwards to it, operator new: ",
                    forward.operator_new_counted ? "its own (counted)"
                                                 : "libstdc++'s (counted through malloc)");
  }
  return a;
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

std::string MappedAs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned dev_major = 0, dev_minor = 0;
    uint64_t inode = 0;
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%*x-%*x %*s %*x %x:%x %" SCNu64 " %n", &dev_major, &dev_minor,
                    &inode, &path_at) < 3) {
      continue;
    }
    if (inode == st.st_ino && makedev(dev_major, dev_minor) == st.st_dev) {
      return line.substr(static_cast<size_t>(path_at));
    }
  }
  return "";
}

std::string DescribeAllocator(const ActiveAllocator& active) {
  return absl::StrCat(active.name, active.version.empty() ? "" : " ", active.version, " (",
                      active.object, ")");
}

bool SanitizerBuild() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace rockpool::process
