// CheckInterposition(): whether the process's zstd/zlib/lz4 symbols bind to
// rockpool, and which copy of each codec the pools run on (codec_routes.h).
#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace rockpool::legacy {

namespace {

// True if the process-wide definition of `name` lives in the object that
// holds this code (the executable or the preloaded object).
bool BoundHere(const char* name, std::string* detail) {
  const LoadedObject& mine = RockpoolObject();
  void* global = GlobalDefinition(name);
  LoadedObject theirs;
  if (global == nullptr || !ObjectAt(global, &theirs)) {
    absl::StrAppend(detail, name, " not found; ");
    return false;
  }
  if (theirs.link_map != mine.link_map) {
    absl::StrAppend(detail, name, " resolves to ", DisplayName(theirs), ", not to rockpool (",
                    DisplayName(mine), "); ");
    return false;
  }
  return true;
}

// A codec binds at its first call (codec_routes.h), so "unused" is not a
// failure: asking must not bind (nor create a context in a process that
// may never compress).
template <typename Copy>
void AddState(const CodecRoutes<Copy>& routes, bool* pooled, std::string* detail) {
  *pooled = routes.state() != CodecState::kForwarded;
  if (!*pooled) {
    absl::StrAppend(detail, Copy::kCodec, " ", CodecStateName(routes.state()),
                    routes.reason().empty() ? "" : ": ", routes.reason(), "; ");
  }
}

template <typename Copy>
std::string StateTokens(const CodecRoutes<Copy>& routes) {
  const CodecState state = routes.state();
  const std::string callers = routes.forwarded_callers();
  std::string why = state == CodecState::kForwarded ? routes.reason() : callers;
  const char* name = state == CodecState::kUnused && !callers.empty()
                         ? CodecStateName(CodecState::kForwarded)
                         : CodecStateName(state);
  std::string out = absl::StrCat(" ", Copy::kCodec, "=", name);
  if (!why.empty()) absl::StrAppend(&out, " ", Copy::kCodec, "_forwarded=\"", why, "\"");
  return out;
}

}  // namespace

std::string CodecStates() {
  return StateTokens(ZstdRoutes()) + StateTokens(ZlibRoutes()) + StateTokens(Lz4Routes());
}

Interposition CheckInterposition() {
  Interposition out;
  out.zstd = true;
  for (const char* name : ZstdCopy::kRequiredEntryPoints) {
    out.zstd = BoundHere(name, &out.detail) && out.zstd;
  }
  out.zlib = true;
  for (const char* name : ZlibCopy::kRequiredEntryPoints) {
    out.zlib = BoundHere(name, &out.detail) && out.zlib;
  }
  out.lz4 = true;
  for (const char* name : Lz4Copy::kRequiredEntryPoints) {
    out.lz4 = BoundHere(name, &out.detail) && out.lz4;
  }
  AddState(ZlibRoutes(), &out.zlib_layout, &out.detail);
  AddState(ZstdRoutes(), &out.zstd_layout, &out.detail);
  AddState(Lz4Routes(), &out.lz4_pooled, &out.detail);
  return out;
}

std::string Interposition::ToString() const {
  std::string s = absl::StrCat(
      "zstd ", zstd ? (zstd_layout ? "interposed" : "interposed but forwarded") : "NOT interposed",
      ", zlib ",
      zlib ? (zlib_layout ? "interposed" : "interposed but forwarded") : "NOT interposed", ", lz4 ",
      lz4 ? (lz4_pooled ? "interposed" : "interposed but forwarded") : "NOT interposed");
  if (!detail.empty()) absl::StrAppend(&s, " (", detail, ")");
  return s;
}

}  // namespace rockpool::legacy
