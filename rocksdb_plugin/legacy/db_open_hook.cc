// Every DB::Open of Debian's librocksdb.so 7.8.3 passes through
// rocksdb::SanitizeOptions(dbname, DBOptions, read_only, Status*) (the DBImpl
// constructor), and the library calls it through its PLT: a definition in
// the executable or in librockpool_preload.so interposes on it. rockpool
// forwards to the real function and then adds its observer listener
// (listener.h), so a DB opened by a program that took no listener from
// options (db_bench without --options_file, db_stress, which clears its
// listeners) still gets "rockpool active" and the reports in its LOG when
// the environment switched pooling on; and it writes "rockpool active at
// open" to the DB's LOG, which SanitizeOptions has just created.
//
// Only for RocksDB linked as a shared library (Debian's): with a static
// librocksdb.a this definition would clash with the library's own, so the
// build leaves this file out for other RocksDBs (BUILD.bazel).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "rocksdb/options.h"
#include "rocksdb/status.h"
#include "rocksdb_plugin/legacy/listener.h"
#include "rocksdb_plugin/legacy/refusal.h"

namespace rocksdb {

// Declared in RocksDB's db/db_impl/db_impl.h, which Debian does not install.
DBOptions SanitizeOptions(const std::string& dbname, const DBOptions& src, bool read_only,
                          Status* logger_creation_s);

DBOptions SanitizeOptions(const std::string& dbname, const DBOptions& src, bool read_only,
                          Status* logger_creation_s) {
  using Fn = DBOptions (*)(const std::string&, const DBOptions&, bool, Status*);
  static const Fn real = reinterpret_cast<Fn>(dlsym(
      RTLD_NEXT,
      "_ZN7rocksdb15SanitizeOptionsERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_"
      "9DBOptionsEbPNS_6StatusE"));
  if (real == nullptr) {
    // Only possible if this object is loaded without librocksdb.so, which
    // it links: nothing sensible can open a DB then.
    std::fputs("rockpool: rocksdb::SanitizeOptions not found after rockpool\n", stderr);
    std::abort();
  }
  // In a process running another RocksDB (refusal.h) DBOptions may have
  // another layout: the result goes straight to the caller, untouched.
  if (!rockpool::legacy::Refusal().ok()) return real(dbname, src, read_only, logger_creation_s);
  DBOptions sanitized = real(dbname, src, read_only, logger_creation_s);
  rockpool::legacy::AttachRockpoolListener(&sanitized);
  rockpool::legacy::AnnounceAtOpen(sanitized);
  return sanitized;
}

}  // namespace rocksdb
