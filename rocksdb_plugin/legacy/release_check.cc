// The check behind Refusal() (refusal.h) for objects that link a shared
// librocksdb: librockpool_preload.so, and programs linking
// //rocksdb_plugin:legacy with Debian's librocksdb.so (the only builds that
// compile this file, BUILD.bazel).
//
// "The running RocksDB" is the library that DB::Open runs in this process:
// the next definition of rocksdb::SanitizeOptions after this object's own
// (db_open_hook.cc), exactly the one the hook forwards to. It must be the
// object that defines the rocksdb::GetRocksVersionAsString this object binds
// to (otherwise two RocksDBs share the process and this object's references
// may land in either), report the version of the headers this object was
// compiled with, and have the rocksdb_build_date build property of the
// library it was linked against (built_for.h): a program linking its own
// librocksdb.so.9 puts that library before this object's librocksdb.so.7.8
// in the global scope, and a librocksdb.so.7.8 on LD_LIBRARY_PATH replaces
// Debian's.
#include <dlfcn.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/built_for.h"
#include "rocksdb_plugin/built_for_line.h"
#include "rocksdb_plugin/legacy/refusal.h"
#include "rocksdb_plugin/release_check.h"

namespace rockpool::legacy {
namespace {

// The line `rockpool run` reads from the object file (built_for.h); read
// here too, which also keeps it in the object.
constexpr char kBuiltFor[] = "rockpool_preload_built_for: " ROCKPOOL_BUILT_FOR_FIELDS;

constexpr char kSanitizeOptions[] =
    "_ZN7rocksdb15SanitizeOptionsERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_"
    "9DBOptionsEbPNS_6StatusE";

std::string ObjectOf(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != '\0') {
    return info.dli_fname;
  }
  return "the program";  // the main program's dli_fname is "" for some loaders
}

}  // namespace

absl::Status CheckRunningRocksdb() {
  absl::string_view fields(kBuiltFor);
  fields.remove_prefix(kBuiltForPrefix.size());
  const std::string self = ObjectOf(reinterpret_cast<const void*>(&CheckRunningRocksdb));
  const absl::StatusOr<std::string> built_for = DescribeBuiltFor(fields, self);
  if (!built_for.ok()) return built_for.status();

  void* sanitize = dlsym(RTLD_NEXT, kSanitizeOptions);
  if (sanitize == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no RocksDB runs DB::Open here; ", *built_for));
  }
  const std::string running = ObjectOf(sanitize);
  // This object's reference resolves through the global scope: the first
  // definition, whichever RocksDB that is.
  const std::string version_from =
      ObjectOf(reinterpret_cast<const void*>(&rocksdb::GetRocksVersionAsString));
  if (version_from != running) {
    return absl::FailedPreconditionError(
        absl::StrCat("two RocksDBs share this process (DB::Open runs ", running,
                     ", the version comes from ", version_from, "); ", *built_for));
  }
  // The same RocksDB answers both: compare its release and build.
  return CompareRelease(fields, self, ReadRunningRocksdb(), running);
}

}  // namespace rockpool::legacy
