#include "tools/rockpool/object_choice.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "tools/rockpool/elf_needed.h"

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
  return std::nullopt;
}

const char* ObjectFileName(ObjectKind kind) {
  return kind == ObjectKind::kPreload ? kPreloadObject : kInterposeObject;
}

std::string LibDir() {
  const char* dir = std::getenv(kLibDirVariable);
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(kDefaultLibDir);
}

absl::StatusOr<std::string> ResolveProgram(const std::string& program) {
  if (program.empty()) return absl::InvalidArgumentError("empty program name");
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), F_OK) != 0) {
      return absl::NotFoundError(absl::StrCat(program, ": no such file"));
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

absl::StatusOr<ObjectChoice> ChooseObject(const std::string& path,
                                          std::optional<ObjectKind> forced) {
  absl::StatusOr<ProgramFile> file = ReadProgramFile(path);
  if (!file.ok()) return file.status();
  ObjectChoice choice;
  switch (file->kind) {
    case ProgramFile::Kind::kElf:
      if (std::string dep = RocksdbDependency(*file); !dep.empty()) {
        choice.kind = ObjectKind::kPreload;
        choice.reason = absl::StrCat(path, " needs ", dep, " (DT_NEEDED): Debian's RocksDB");
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
    choice.reason = absl::StrCat(
        "--object=", *forced == ObjectKind::kPreload ? "preload" : "interpose",
        " (automatic choice: ", ObjectFileName(choice.kind), ", because ", choice.reason, ")");
    choice.kind = *forced;
  } else if (forced.has_value()) {
    choice.reason =
        absl::StrCat("--object=", *forced == ObjectKind::kPreload ? "preload" : "interpose",
                     " (also the automatic choice: ", choice.reason, ")");
  }
  choice.object_path = absl::StrCat(LibDir(), "/", ObjectFileName(choice.kind));
  return choice;
}

}  // namespace rockpool::cli
