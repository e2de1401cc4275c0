#include "tools/rockpool/object_choice.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "rocksdb_plugin/built_for.h"
#include "tools/rockpool/elf_needed.h"
#include "tools/rockpool/library_path.h"
#include "tools/sst/byte_source.h"

namespace rockpool::cli {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string DefaultPath() {
  const size_t n = confstr(_CS_PATH, nullptr, 0);
  if (n == 0) return "/bin:/usr/bin";
  std::string path(n, '\0');
  confstr(_CS_PATH, path.data(), n);
  path.resize(n - 1);
  return path;
}

}  // namespace

std::optional<ObjectKind> ObjectKindFromName(const std::string& name) {
  if (name == "preload") return ObjectKind::kPreload;
  if (name == "interpose") return ObjectKind::kInterpose;
  if (name == "native") return ObjectKind::kNative;
  return std::nullopt;
}

const char* ObjectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kPreload:
      return "preload";
    case ObjectKind::kNative:
      return "native";
    case ObjectKind::kInterpose:
      break;
  }
  return "interpose";
}

const char* ObjectFileName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kPreload:
      return kPreloadObject;
    case ObjectKind::kNative:
      return kNativeObject;
    case ObjectKind::kInterpose:
      break;
  }
  return kInterposeObject;
}

std::string LibDir() {
  const char* dir = std::getenv(kLibDirVariable);
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(kDefaultLibDir);
}

absl::StatusOr<std::string> ResolveProgram(const std::string& program) {
  if (program.empty()) return absl::InvalidArgumentError("empty program name");
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), F_OK) != 0) {
      return absl::ErrnoToStatus(errno, program);
    }
    return program;
  }
  const char* env = std::getenv("PATH");
  const std::string path = env != nullptr ? std::string(env) : DefaultPath();
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    // An empty entry is the current directory, as for execvp.
    const std::string candidate =
        dir.empty() ? program : absl::StrCat(std::string(dir), "/", program);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return absl::NotFoundError(absl::StrCat(program, ": command not found in PATH"));
}

namespace {

// What the object at `object_path` says it is built for (its line after
// `prefix`).
absl::StatusOr<RocksdbBuild> ObjectBuiltFor(const std::string& object_path,
                                            absl::string_view prefix) {
  absl::StatusOr<std::string> bytes = sst::ReadWholeFile(object_path, kMaxProgramBytes);
  if (!bytes.ok()) return bytes.status();
  std::optional<RocksdbBuild> build = FindBuiltFor(*bytes, prefix);
  if (!build.has_value()) {
    return absl::NotFoundError(
        absl::StrCat(object_path, " does not say which RocksDB it is built for"));
  }
  return *build;
}

// Whether PROGRAM, which needs `dependency` (librocksdb.so.*), runs the
// RocksDB build the object `object` (at `object_path`, its built-for line
// after `prefix`) is built for (*matches), and the sentence saying why:
// only the soname the object is built for, resolved by the loader to a
// library with the object's rocksdb_build_date (built_for.h).
std::string BuiltForReason(const std::string& program, const ProgramFile& file,
                           const std::string& dependency, absl::string_view object,
                           absl::string_view prefix, const std::string& object_path,
                           bool* matches) {
  *matches = false;
  const std::string needs = absl::StrCat(program, " needs ", dependency, " (DT_NEEDED)");
  absl::StatusOr<RocksdbBuild> built_for = ObjectBuiltFor(object_path, prefix);
  if (!built_for.ok()) return absl::StrCat(needs, ", but ", built_for.status().message());
  const std::string object_for = absl::StrCat(object, " is for ", built_for->ToString(), " only");
  if (dependency != built_for->soname) return absl::StrCat(needs, "; ", object_for);
  absl::StatusOr<std::string> library = ResolveLibrary(program, file, dependency);
  if (!library.ok()) {
    return absl::StrCat(needs, ": ", library.status().message(), "; ", object_for);
  }
  const std::string found = absl::StrCat(needs, ", found at ", *library);
  absl::StatusOr<std::string> bytes = sst::ReadWholeFile(*library, kMaxProgramBytes);
  if (!bytes.ok()) {
    return absl::StrCat(found, ", unreadable (", bytes.status().message(), "); ", object_for);
  }
  const std::optional<std::string> date = FindBuildDate(*bytes);
  if (!date.has_value()) {
    return absl::StrCat(found, ", which has no rocksdb_build_date; ", object_for);
  }
  if (*date != built_for->build_date) {
    return absl::StrCat(found, ", built ", *date, "; ", object_for);
  }
  *matches = true;
  return absl::StrCat(found, ", built ", *date, ": ", built_for->ToString(), ", the build ", object,
                      " is for");
}

// The object for PROGRAM, which needs `dependency` (librocksdb.so.*), and
// why: the native object when it is installed and built for the program's
// RocksDB build, else the preload object when that is, else the interposer.
ObjectChoice ChooseForDependency(const std::string& program, const ProgramFile& file,
                                 const std::string& dependency) {
  ObjectChoice choice;
  const std::string native_path = absl::StrCat(LibDir(), "/", kNativeObject);
  std::string not_native;
  if (access(native_path.c_str(), F_OK) == 0) {
    bool native = false;
    std::string why = BuiltForReason(program, file, dependency, kNativeObject,
                                     kNativeBuiltForPrefix, native_path, &native);
    if (native) {
      choice.kind = ObjectKind::kNative;
      choice.reason = absl::StrCat(why,
                                   "; it serves the DBs whose options name "
                                   "compression_manager=rockpool");
      return choice;
    }
    not_native = absl::StrCat(" (not ", kNativeObject, ": ", why, ")");
  }
  bool preload = false;
  choice.reason = BuiltForReason(program, file, dependency, kPreloadObject, kBuiltForPrefix,
                                 absl::StrCat(LibDir(), "/", kPreloadObject), &preload);
  if (preload) {
    choice.kind = ObjectKind::kPreload;
  } else {
    absl::StrAppend(&choice.reason, ": the interposer, safe with any RocksDB");
  }
  absl::StrAppend(&choice.reason, not_native);
  return choice;
}

}  // namespace

absl::StatusOr<ObjectChoice> ChooseObject(const std::string& path,
                                          std::optional<ObjectKind> forced) {
  absl::StatusOr<ProgramFile> file = ReadProgramFile(path);
  if (!file.ok()) return file.status();
  ObjectChoice choice;
  switch (file->kind) {
    case ProgramFile::Kind::kElf:
      if (std::string dep = RocksdbDependency(*file); !dep.empty()) {
        choice = ChooseForDependency(path, *file, dep);
      } else {
        choice.reason =
            absl::StrCat(path, " needs no librocksdb.so (DT_NEEDED: ",
                         file->needed.empty() ? "none" : absl::StrJoin(file->needed, ", "),
                         "): it carries its own RocksDB or none");
      }
      break;
    case ProgramFile::Kind::kScript:
      choice.reason = absl::StrCat(path, " is a script (#!", file->interpreter,
                                   "), not ELF: the interposer is safe in any process it starts; "
                                   "use `rockpool run` on the program linking librocksdb.so to "
                                   "get the preload object");
      break;
    case ProgramFile::Kind::kOther:
      choice.reason = absl::StrCat(path, " is not a 64-bit ELF file or a script: the interposer");
      break;
  }
  if (forced.has_value() && *forced != choice.kind) {
    choice.reason = absl::StrCat("--object=", ObjectKindName(*forced),
                                 " (automatic choice: ", ObjectFileName(choice.kind), ", because ",
                                 choice.reason, ")");
    choice.kind = *forced;
  } else if (forced.has_value()) {
    choice.reason = absl::StrCat("--object=", ObjectKindName(*forced),
                                 " (also the automatic choice: ", choice.reason, ")");
  }
  choice.object_path = absl::StrCat(LibDir(), "/", ObjectFileName(choice.kind));
  return choice;
}

}  // namespace rockpool::cli
