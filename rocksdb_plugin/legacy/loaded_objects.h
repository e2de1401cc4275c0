// The process's loaded objects as the dynamic linker sees them: which object
// holds an address, what a symbol reference from an object would bind to
// without rockpool, and which functions an object exports.
//
// Why: the interposers are reached by every object whose PLT binds to them,
// and each such caller must run exactly the codec copy it would have run
// without rockpool (codec_copies.h). glibc's lookup order for a reference
// from object C is the global scope (the executable, LD_PRELOAD objects, their
// dependencies, RTLD_GLOBAL objects) and then C's own local scope (C and its
// dependencies when C was opened with RTLD_LOCAL, like MariaDB's
// ha_rocksdb.so). Since rockpool's definition was the one that bound, no
// object ahead of rockpool in the global scope defines the name, so the copy
// C would otherwise reach is the next global definition (RTLD_NEXT) or,
// failing that, the first in C's local scope.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LOADED_OBJECTS_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LOADED_OBJECTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace rockpool::legacy {

// One loaded object (the executable, a shared library, a dlopened module).
struct LoadedObject {
  const void* link_map = nullptr;  // glibc's struct link_map*, the identity
  uintptr_t start = 0;             // [start, end): its mapped segments
  uintptr_t end = 0;
  std::string path;  // "" for the executable when glibc gives no name
  bool contains(uintptr_t address) const { return address - start < end - start; }
};

// The one rule for "the same object": the same link map, mapped at the same
// place under the same path. glibc reuses a link map's memory after
// dlclose, so a module loaded again (elsewhere, or another file) is another
// object even when its link map pointer matches.
inline bool SameObject(const LoadedObject& a, const LoadedObject& b) {
  return a.link_map == b.link_map && a.start == b.start && a.end == b.end && a.path == b.path;
}

// The object holding `address`; false if none does (JIT code, a freed
// mapping). Lock-free in glibc >= 2.35 (_dl_find_object).
bool ObjectAt(const void* address, LoadedObject* out);

// The object that holds rockpool's own code (the executable for a Bazel
// program linking :interpose statically, else the preloaded object).
const LoadedObject& RockpoolObject();

// True if `object` was loaded before rockpool initialised (the executable
// and everything the loader brought in for it, LD_PRELOAD included): such
// objects are never unloaded, so what is learnt about them stays true.
bool IsStartupObject(const LoadedObject& object);

// The address a reference to `name` from `caller` binds to when rockpool's
// own definition is skipped: dlsym(RTLD_NEXT) from rockpool's object, else
// the caller's local scope (dlsym on a handle of the caller). Null if
// neither defines it. *global (if given) says which of the two it was.
void* LookupSkippingRockpool(const LoadedObject& caller, const char* name, bool* global);

// The first definition of `name` in the global scope (dlsym RTLD_DEFAULT).
void* GlobalDefinition(const char* name);

// Calls fn(name) for every function `object` defines and exports (its
// dynamic symbol table: defined STT_FUNC/STT_GNU_IFUNC, global or weak,
// default visibility). False if the table cannot be read.
bool ForEachExportedFunction(const LoadedObject& object,
                             const std::function<void(std::string_view)>& fn);

// A printable name: the path; for the executable, which glibc leaves
// unnamed, the /proc/self/exe path ("the executable" if that cannot be read).
std::string DisplayName(const LoadedObject& object);

// Keeps `object` loaded for the rest of the process (dlopen with
// RTLD_NOLOAD | RTLD_NODELETE), so contexts its code made can outlive the
// caller that loaded it. False if it could not.
bool PinObject(const LoadedObject& object);

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_LOADED_OBJECTS_H_
