#include "rocksdb_plugin/legacy/codec_copies.h"

#include <dlfcn.h>
#include <link.h>

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rockpool::legacy {
namespace {

int CollectObject(struct dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') out->push_back(info->dlpi_name);
  return 0;
}

// The one loaded object, other than rockpool, that defines `name` itself;
// false if none or several do. (For callers whose own scope reaches no copy:
// a module's function that tail-calls the codec returns straight to its own
// caller, so the return address names the wrong object.)
bool UniqueDefiner(const char* name, LoadedObject* out) {
  std::vector<std::string> paths;
  dl_iterate_phdr(&CollectObject, &paths);
  int found = 0;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* p = dlsym(handle, name);
    dlclose(handle);
    LoadedObject object;
    if (p == nullptr || !ObjectAt(p, &object) || object.path != path) continue;
    if (SameObject(object, RockpoolObject())) continue;
    if (found > 0 && SameObject(object, *out)) continue;
    *out = object;
    ++found;
  }
  return found == 1;
}

}  // namespace

template <typename Copy>
absl::Status ResolveCopy(const LoadedObject& caller, bool allow_fallback, Copy* copy) {
  LoadedObject scope = caller;
  bool global = false;
  void* anchor = LookupSkippingRockpool(scope, Copy::kAnchor, &global);
  if (anchor == nullptr) {
    if (!allow_fallback || !UniqueDefiner(Copy::kAnchor, &scope)) {
      return absl::NotFoundError(
          absl::StrCat(Copy::kCodec, ": no copy reachable from ", DisplayName(caller)));
    }
    anchor = LookupSkippingRockpool(scope, Copy::kAnchor, &global);
  }
  LoadedObject object;
  if (anchor == nullptr || !ObjectAt(anchor, &object)) {
    return absl::NotFoundError(absl::StrCat(Copy::kCodec, ": ", Copy::kAnchor, " from ",
                                            DisplayName(caller), " lies in no loaded object"));
  }
  copy->object = object;
  copy->global = global;
  copy->private_copy = !global && SameObject(object, caller);
  copy->complete = true;
  copy->Visit([&](const char* name, auto& member, bool pool) {
    void* p = LookupSkippingRockpool(scope, name, nullptr);
    LoadedObject at;
    const bool inside = p != nullptr && ObjectAt(p, &at) && SameObject(at, object);
    if (inside) {
      member = reinterpret_cast<std::remove_reference_t<decltype(member)>>(p);
      return;
    }
    member = nullptr;
    if (pool && copy->complete) {
      copy->complete = false;
      copy->incomplete = p == nullptr ? absl::StrCat(DisplayName(object), " lacks ", name)
                                      : absl::StrCat(name, " resolves to ", DisplayName(at),
                                                     ", not to ", DisplayName(object));
    }
  });
  return absl::OkStatus();
}

template absl::Status ResolveCopy<ZstdCopy>(const LoadedObject&, bool, ZstdCopy*);
template absl::Status ResolveCopy<ZlibCopy>(const LoadedObject&, bool, ZlibCopy*);
template absl::Status ResolveCopy<Lz4Copy>(const LoadedObject&, bool, Lz4Copy*);

absl::Status CheckCoherent(const CopyOrigin& copy) {
  const LoadedObject& self = RockpoolObject();
  absl::Status coherent;
  const bool read = ForEachExportedFunction(copy.object, [&](std::string_view name) {
    if (!coherent.ok()) return;
    const std::string n(name);
    void* first = GlobalDefinition(n.c_str());
    if (first == nullptr) return;
    const uintptr_t at = reinterpret_cast<uintptr_t>(first);
    if (copy.object.contains(at) || self.contains(at)) return;
    LoadedObject other;
    coherent = absl::FailedPreconditionError(
        absl::StrCat(ObjectAt(first, &other) ? DisplayName(other) : std::string("another object"),
                     " defines ", n, " itself"));
  });
  if (!read) {
    return absl::UnavailableError(
        absl::StrCat("cannot read the symbol table of ", DisplayName(copy.object)));
  }
  return coherent;
}

}  // namespace rockpool::legacy
