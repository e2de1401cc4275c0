// CheckInterposition(): whether the process's zstd/zlib symbols bind to
// rockpool, and whether both libraries' private layouts hold.
#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace rockpool::legacy {

using internal::Runtime;

namespace {

void Anchor() {}

// True if the process-wide definition of `name` lives in the object that
// holds this code (the executable or librockpool_preload.so).
bool BoundHere(const char* name, std::string* detail) {
  Dl_info mine;
  Dl_info theirs;
  void* global = dlsym(RTLD_DEFAULT, name);
  if (dladdr(reinterpret_cast<void*>(&Anchor), &mine) == 0) {
    absl::StrAppend(detail, "cannot locate rockpool's own object; ");
    return false;
  }
  if (global == nullptr || dladdr(global, &theirs) == 0) {
    absl::StrAppend(detail, name, " not found; ");
    return false;
  }
  if (theirs.dli_fbase != mine.dli_fbase) {
    absl::StrAppend(detail, name, " resolves to ",
                    theirs.dli_fname != nullptr ? theirs.dli_fname : "?", ", not to rockpool (",
                    mine.dli_fname != nullptr ? mine.dli_fname : "?", "); ");
    return false;
  }
  return true;
}

}  // namespace

Interposition CheckInterposition() {
  Interposition out;
  out.zstd = true;
  for (const char* name :
       {"ZSTD_createCCtx", "ZSTD_freeCCtx", "ZSTD_createDCtx", "ZSTD_freeDCtx"}) {
    out.zstd = BoundHere(name, &out.detail) && out.zstd;
  }
  out.zlib = true;
  for (const char* name : {"deflateInit2_", "deflateEnd", "inflateInit2_", "inflateEnd"}) {
    out.zlib = BoundHere(name, &out.detail) && out.zlib;
  }
  Runtime& rt = Runtime::GetOrCreate();
  out.zlib_layout = rt.zlib_layout_ok();
  if (!out.zlib_layout) absl::StrAppend(&out.detail, rt.zlib_layout_detail());
  out.zstd_layout = rt.zstd_layout_ok();
  if (!out.zstd_layout) absl::StrAppend(&out.detail, rt.zstd_layout_detail());
  return out;
}

std::string Interposition::ToString() const {
  std::string s = absl::StrCat(
      "zstd ", zstd ? (zstd_layout ? "interposed" : "interposed but forwarded") : "NOT interposed",
      ", zlib ",
      zlib ? (zlib_layout ? "interposed" : "interposed but forwarded") : "NOT interposed");
  if (!detail.empty()) absl::StrAppend(&s, " (", detail, ")");
  return s;
}

}  // namespace rockpool::legacy
