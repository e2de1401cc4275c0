#include "rocksdb_plugin/legacy/loaded_objects.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

namespace rockpool::legacy {
namespace {

void Anchor() {}

std::string ExecutablePath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// The link maps present when rockpool first asked (at its initialisation,
// from the load-time configuration's static initializer): the startup set.
struct StartupObjects {
  std::vector<const void*> maps;
  StartupObjects() {
    void* self = dlopen(nullptr, RTLD_LAZY | RTLD_NOLOAD);
    struct link_map* map = nullptr;
    if (self != nullptr && dlinfo(self, RTLD_DI_LINKMAP, &map) == 0) {
      for (; map != nullptr; map = map->l_next) maps.push_back(map);
    }
    if (self != nullptr) dlclose(self);
    std::sort(maps.begin(), maps.end());
  }
};

const StartupObjects& Startup() {
  static const StartupObjects* objects = new StartupObjects();
  return *objects;
}

// The object's dynamic section entry `tag`'s address, relocated (glibc
// relocates most in place; the vDSO's are not).
uintptr_t DynamicAddress(const struct link_map* map, Elf64_Sxword tag) {
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag != tag) continue;
    const uintptr_t p = d->d_un.d_ptr;
    return p < map->l_addr ? p + map->l_addr : p;
  }
  return 0;
}

// The number of symbols in the table, from DT_HASH or DT_GNU_HASH.
size_t SymbolCount(const struct link_map* map) {
  if (const uintptr_t hash = DynamicAddress(map, DT_HASH); hash != 0) {
    return reinterpret_cast<const uint32_t*>(hash)[1];  // nchain
  }
  const uintptr_t gnu = DynamicAddress(map, DT_GNU_HASH);
  if (gnu == 0) return 0;
  const auto* words = reinterpret_cast<const uint32_t*>(gnu);
  const uint32_t nbuckets = words[0];
  const uint32_t symoffset = words[1];
  const uint32_t bloom_size = words[2];
  const auto* buckets =
      reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint64_t*>(words + 4) + bloom_size);
  const uint32_t* chains = buckets + nbuckets;
  uint32_t last = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) last = std::max(last, buckets[b]);
  if (last < symoffset) return symoffset;
  while ((chains[last - symoffset] & 1u) == 0) ++last;
  return last + 1;
}

}  // namespace

bool ObjectAt(const void* address, LoadedObject* out) {
  struct dl_find_object found;
  if (_dl_find_object(const_cast<void*>(address), &found) != 0) return false;
  const struct link_map* map = found.dlfo_link_map;
  out->link_map = map;
  out->start = reinterpret_cast<uintptr_t>(found.dlfo_map_start);
  out->end = reinterpret_cast<uintptr_t>(found.dlfo_map_end);
  out->path = map->l_name != nullptr ? map->l_name : "";
  return true;
}

const LoadedObject& RockpoolObject() {
  static const LoadedObject* self = [] {
    auto* object = new LoadedObject();
    ObjectAt(reinterpret_cast<const void*>(&Anchor), object);
    return object;
  }();
  return *self;
}

bool IsStartupObject(const LoadedObject& object) {
  const std::vector<const void*>& maps = Startup().maps;
  return std::binary_search(maps.begin(), maps.end(), object.link_map);
}

void* GlobalDefinition(const char* name) { return dlsym(RTLD_DEFAULT, name); }

void* LookupSkippingRockpool(const LoadedObject& caller, const char* name, bool* global) {
  const LoadedObject& self = RockpoolObject();
  if (global != nullptr) *global = false;
  void* p = dlsym(RTLD_NEXT, name);
  if (p != nullptr && !self.contains(reinterpret_cast<uintptr_t>(p))) {
    if (global != nullptr) *global = true;
    return p;
  }
  // The caller's local scope: a handle of the caller searches it and its
  // dependencies, in load order.
  void* handle = caller.path.empty() ? dlopen(nullptr, RTLD_LAZY | RTLD_NOLOAD)
                                     : dlopen(caller.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  p = dlsym(handle, name);
  dlclose(handle);
  if (p != nullptr && self.contains(reinterpret_cast<uintptr_t>(p))) return nullptr;
  return p;
}

bool ForEachExportedFunction(const LoadedObject& object,
                             const std::function<void(std::string_view)>& fn) {
  const auto* map = static_cast<const struct link_map*>(object.link_map);
  if (map == nullptr || map->l_ld == nullptr) return false;
  const uintptr_t symtab = DynamicAddress(map, DT_SYMTAB);
  const uintptr_t strtab = DynamicAddress(map, DT_STRTAB);
  const size_t count = SymbolCount(map);
  if (symtab == 0 || strtab == 0 || count == 0) return false;
  const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const char* strings = reinterpret_cast<const char*>(strtab);
  for (size_t i = 1; i < count; ++i) {
    const ElfW(Sym)& s = symbols[i];
    const unsigned type = ELF64_ST_TYPE(s.st_info);
    const unsigned bind = ELF64_ST_BIND(s.st_info);
    if (s.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC)) continue;
    if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
    if (ELF64_ST_VISIBILITY(s.st_other) != STV_DEFAULT) continue;
    fn(strings + s.st_name);
  }
  return true;
}

std::string DisplayName(const LoadedObject& object) {
  if (!object.path.empty()) return object.path;
  static const std::string* exe = new std::string(ExecutablePath());
  return exe->empty() ? std::string("the executable") : *exe;
}

bool PinObject(const LoadedObject& object) {
  if (IsStartupObject(object)) return true;
  if (object.path.empty()) return false;
  return dlopen(object.path.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
}

}  // namespace rockpool::legacy
