// Which rockpool object a program gets, and where the objects are:
//   librockpool_preload.so    only for the exact RocksDB it is built for:
//                             the program needs the object's soname
//                             (librocksdb.so.7.8, DT_NEEDED), and the library
//                             the dynamic loader resolves that soname to
//                             (library_path.h) has the object's
//                             rocksdb_build_date (rocksdb_plugin/built_for.h):
//                             Debian's 7.8.3. The object anywhere else would
//                             crash the program.
//   librockpool_native.so     the same rule for the native face
//                             (compression_manager=rockpool) built against
//                             a shared upstream RocksDB >= 10.4: a program
//                             whose librocksdb.so resolves to that release
//                             and build; checked first, when installed
//   librockpool_interpose.so  anything else: a program on another
//                             librocksdb.so (another soname, another build,
//                             or not found), a program with its own RocksDB
//                             (mariadbd with MyRocks), a script (#!: not ELF,
//                             so its interpreter is what runs), a program
//                             without RocksDB; no RocksDB inside, safe in
//                             any process
// The objects live in ROCKPOOL_LIBDIR when set, else in the installed
// layout's kDefaultLibDir.
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_OBJECT_CHOICE_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_OBJECT_CHOICE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace rockpool::cli {

inline constexpr char kDefaultLibDir[] = "/usr/lib/x86_64-linux-gnu/rockpool";
inline constexpr char kLibDirVariable[] = "ROCKPOOL_LIBDIR";
inline constexpr char kPreloadObject[] = "librockpool_preload.so";
inline constexpr char kInterposeObject[] = "librockpool_interpose.so";
inline constexpr char kNativeObject[] = "librockpool_native.so";

enum class ObjectKind { kPreload, kInterpose, kNative };

// "preload" / "interpose" / "native" (the --object values) to the kind;
// nullopt otherwise.
std::optional<ObjectKind> ObjectKindFromName(const std::string& name);

// The --object value of a kind.
const char* ObjectKindName(ObjectKind kind);

const char* ObjectFileName(ObjectKind kind);

// ROCKPOOL_LIBDIR (if set and not empty) or kDefaultLibDir.
std::string LibDir();

struct ObjectChoice {
  ObjectKind kind = ObjectKind::kInterpose;
  std::string object_path;  // LibDir()/<object file>
  std::string reason;       // one sentence: the dependency found, or why not
};

// PROGRAM resolved as execvp does: a name with a '/' as it is, else the
// first executable regular file of that name in $PATH (unset: the
// confstr(_CS_PATH) default). NotFound naming the program otherwise.
absl::StatusOr<std::string> ResolveProgram(const std::string& program);

// The object for the program file at `path` (already resolved), with the
// reason. `forced` (--object) overrides the choice; the reason then says so
// and what the automatic choice would have been. Errors: the file cannot be
// read or is a malformed ELF file.
absl::StatusOr<ObjectChoice> ChooseObject(const std::string& path,
                                          std::optional<ObjectKind> forced = std::nullopt);

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_OBJECT_CHOICE_H_
