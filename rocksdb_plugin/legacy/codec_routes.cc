#include "rocksdb_plugin/legacy/codec_routes.h"

#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compression/annotated_mutex.h"
#include "rocksdb_plugin/verbose.h"

namespace rockpool::legacy {
namespace {

// Set while this thread binds a codec: the layout checks run the copy, whose
// own internal calls of interposed names (libz's inflateInit2_ calling
// inflateReset2) come back through the interposers and must simply forward.
thread_local bool t_binding = false;

template <typename Copy>
Copy* EmptyCopy() {
  static Copy* const empty = new Copy();
  return empty;
}

}  // namespace

const char* CodecStateName(CodecState state) {
  switch (state) {
    case CodecState::kUnused:
      return "unused";
    case CodecState::kPooled:
      return "pooled";
    case CodecState::kForwarded:
      return "forwarded";
  }
  return "?";
}

// No rockpool lock is held while the loader runs (dlopen, dlsym,
// dl_iterate_phdr take glibc's loader lock): a thread inside dlopen whose
// constructors call an interposed function must never wait for a thread
// that waits for the loader.
template <typename Copy>
const Copy* CodecRoutes<Copy>::Resolve(const void* return_address) noexcept {
  LoadedObject caller;
  // An address in no object (generated code): the global scope decides.
  if (!ObjectAt(return_address, &caller)) caller = LoadedObject();
  {
    // Exclusive, not a reader lock: Debian's Abseil is not built for TSan,
    // and only AnnotatedMutexLock tells it about the ordering
    // (compression/annotated_mutex.h). This is the slow path, after the hot
    // table and the thread's last hit.
    AnnotatedMutexLock lock(&mu_);
    for (int i = 0; i < known_count_; ++i) {
      if (SameObject(known_[i]->caller, caller)) return known_[i]->copy;
    }
  }
  Copy resolved;
  if (!ResolveCopy(caller, /*allow_fallback=*/true, &resolved).ok()) return EmptyCopy<Copy>();
  // A caller that reached no copy through its own scope got the process's
  // only definition, which may be a module that is unloaded later: such
  // answers are not remembered.
  const bool own_scope = LookupSkippingRockpool(caller, Copy::kAnchor, nullptr) != nullptr;
  const bool startup = IsStartupObject(caller);
  AnnotatedMutexLock lock(&mu_);
  for (int i = 0; i < known_count_; ++i) {
    if (SameObject(known_[i]->caller, caller)) return known_[i]->copy;
  }
  Copy* copy = Register(std::move(resolved));
  if (!own_scope || copy->object.link_map == nullptr || known_count_ == kKnown) return copy;
  auto* known = new (std::nothrow) Known{caller, copy};
  if (known == nullptr) return copy;
  known_[known_count_++] = known;
  const Copy* bound = bound_.load(std::memory_order_acquire);
  if (startup || (bound != nullptr && SameObject(bound->object, caller))) {
    for (auto& slot : hot_) {
      if (slot.load(std::memory_order_relaxed) != nullptr) continue;
      auto* hot = new (std::nothrow) Hot{caller.start, caller.end - caller.start, copy};
      if (hot != nullptr) slot.store(hot, std::memory_order_release);
      break;
    }
  }
  return copy;
}

template <typename Copy>
Copy* CodecRoutes<Copy>::Register(Copy&& resolved) {
  for (int i = 0; i < copy_count_; ++i) {
    if (SameObject(copies_[i]->object, resolved.object)) return copies_[i];
  }
  if (copy_count_ == kKnown) return EmptyCopy<Copy>();
  auto* copy = new (std::nothrow) Copy(std::move(resolved));
  if (copy == nullptr) return EmptyCopy<Copy>();
  copies_[copy_count_++] = copy;
  if (copy->private_copy) {
    SayVerbose(absl::StrCat(Copy::kCodec, ": forwarded to ", DisplayName(copy->object),
                            " (private copy)"));
  }
  return copy;
}

template <typename Copy>
bool CodecRoutes<Copy>::BindFromCaller(const Copy* copy) noexcept {
  if (!pooling_wanted_.load(std::memory_order_relaxed) ||
      state_.load(std::memory_order_acquire) != static_cast<int>(CodecState::kUnused) ||
      t_binding) {
    return false;
  }
  // Binding runs the loader (dlsym) and the copy: a thread that finds
  // another binding forwards this call instead of waiting (see Resolve).
  if (!bind_mu_.TryLock()) return false;
  // The global scope's copy first, as every startup caller reaches it; a
  // caller's own shared copy only where the global scope has none.
  if (!global_tried_) BindGlobal();
  if (state_.load(std::memory_order_relaxed) == static_cast<int>(CodecState::kUnused) &&
      copy->object.link_map != nullptr && !copy->private_copy && copy->complete) {
    Bind(const_cast<Copy*>(copy));
  }
  bind_mu_.Unlock();
  return bound_.load(std::memory_order_acquire) == copy;
}

template <typename Copy>
void CodecRoutes<Copy>::Arm(LayoutCheck check_layout) noexcept {
  AnnotatedMutexLock bind_lock(&bind_mu_);
  check_layout_ = check_layout;
  if (state_.load(std::memory_order_relaxed) != static_cast<int>(CodecState::kUnused)) return;
  const LoadedObject& self = RockpoolObject();
  // The executable's own copy of a required entry point would win every
  // caller's binding: rockpool would never see the calls.
  for (const char* name : Copy::kRequiredEntryPoints) {
    void* first = GlobalDefinition(name);
    if (first == nullptr || self.contains(reinterpret_cast<uintptr_t>(first))) continue;
    LoadedObject other;
    return StandDown(absl::StrCat(ObjectAt(first, &other) ? DisplayName(other) : "another object",
                                  " defines ", name, " itself"));
  }
}

template <typename Copy>
void CodecRoutes<Copy>::BindGlobal() {
  global_tried_ = true;
  Copy resolved;
  if (!ResolveCopy(RockpoolObject(), /*allow_fallback=*/false, &resolved).ok() ||
      !resolved.global) {
    return;  // no copy in the global scope: the caller's own, if shared
  }
  Copy* copy;
  {
    AnnotatedMutexLock lock(&mu_);
    copy = Register(std::move(resolved));
  }
  if (copy->object.link_map != nullptr) Bind(copy);
}

template <typename Copy>
void CodecRoutes<Copy>::Bind(Copy* copy) {
  t_binding = true;
  struct Done {
    ~Done() { t_binding = false; }
  } done;
  if (!copy->complete) return StandDown(copy->incomplete);
  if (const absl::Status coherent = CheckCoherent(*copy); !coherent.ok()) {
    return StandDown(std::string(coherent.message()));
  }
  if (check_layout_ == nullptr) return StandDown("pooling was not armed");
  if (const absl::Status layout = check_layout_(*copy); !layout.ok()) {
    return StandDown(std::string(layout.message()));
  }
  if (!PinObject(copy->object)) {
    return StandDown(absl::StrCat("cannot keep ", DisplayName(copy->object), " loaded"));
  }
  static_cast<typename Copy::Library&>(pool_library_) =
      static_cast<const typename Copy::Library&>(*copy);
  reason_ = absl::StrCat("pooled on ", DisplayName(copy->object));
  state_.store(static_cast<int>(CodecState::kPooled), std::memory_order_release);
  bound_.store(copy, std::memory_order_release);
  // Success says nothing (the activation line says "interposed"); only a
  // stand-down or a forwarded copy is news.
}

template <typename Copy>
void CodecRoutes<Copy>::StandDown(std::string why) {
  reason_ = std::move(why);
  state_.store(static_cast<int>(CodecState::kForwarded), std::memory_order_release);
  SayVerbose(absl::StrCat(Copy::kCodec, " forwarded: ", reason_));
}

template <typename Copy>
std::string CodecRoutes<Copy>::reason() const {
  AnnotatedMutexLock lock(&bind_mu_);
  return reason_;
}

template <typename Copy>
std::string CodecRoutes<Copy>::forwarded_callers() const {
  const Copy* bound = bound_copy();
  std::string out;
  AnnotatedMutexLock lock(&mu_);
  for (int i = 0; i < copy_count_; ++i) {
    const Copy* copy = copies_[i];
    if (copy == bound) continue;
    if (copy->object.link_map == RockpoolObject().link_map) continue;
    const char* why = copy->private_copy ? " (private copy)" : " (another copy)";
    absl::StrAppend(&out, out.empty() ? "" : "; ", DisplayName(copy->object), why);
  }
  return out;
}

template class CodecRoutes<ZstdCopy>;
template class CodecRoutes<ZlibCopy>;
template class CodecRoutes<Lz4Copy>;

}  // namespace rockpool::legacy
