// Which copy of a codec each caller of the interposers reaches, and the one
// copy the pools run on.
//
// Every interposed call starts with For(__builtin_return_address(0)): the
// caller's object (loaded_objects.h) decides its copy (codec_copies.h). The
// answer for an object loaded at startup never changes, so it is kept in a
// small lock-free table of address ranges (the fast path: a few loads and
// compares); callers loaded later (dlopened modules, which can be unloaded
// and their addresses reused) are looked up by their link map, range and
// path under a reader lock on every call.
//
// The pools run on one copy per codec, bound once and never changed, at the
// codec's first call with pooling on (a process that never calls a codec
// pays nothing for it: no layout check, no context, no pinned object):
//   - at Configure() with pooling on (Arm), only the cheap check: if an
//     object ahead of rockpool (the executable) defines the codec's entry
//     points, the codec stands down at once (rockpool would never see its
//     calls, so it would never bind);
//   - at the first call, the global scope's copy: if the copy behind
//     rockpool cannot run coherently (an exported function of it binds
//     elsewhere), or its private layout fails the check, the codec stands
//     down: forwarded untouched, for the rest of the process;
//   - else, if the global scope has no copy, the copy of that first caller,
//     if it reaches a shared one through its local scope (a plugin's
//     libzstd.so.1), which is then pinned (never unloaded).
// A caller whose copy lives in its own object and is found only there (a
// module that bundles the codec) is never pooled: its calls are forwarded to
// that copy, and the pools never hold a context of it, so a dlclose cannot
// leave one behind. Calls from callers of any other copy are forwarded too.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_ROUTES_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_ROUTES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "compression/fast_tls.h"
#include "rocksdb_plugin/legacy/codec_copies.h"

namespace rockpool::legacy {

enum class CodecState : int {
  kUnused,     // no copy bound yet (nothing pooled so far)
  kPooled,     // bound: the pools run on bound_copy()
  kForwarded,  // stood down: every call forwarded (reason())
};
const char* CodecStateName(CodecState state);

template <typename Copy>
class CodecRoutes {
 public:
  // What one call reaches: `copy` is never null (an empty copy, every
  // function null, when the caller reaches none); pooled means the pools
  // may serve the call (copy is the bound one).
  struct Route {
    const Copy* copy;
    bool pooled;
  };

  CodecRoutes() = default;
  CodecRoutes(const CodecRoutes&) = delete;
  CodecRoutes& operator=(const CodecRoutes&) = delete;

  Route For(const void* return_address) noexcept {
    const Copy* copy = Cached(reinterpret_cast<uintptr_t>(return_address));
    if (ABSL_PREDICT_FALSE(copy == nullptr)) copy = Resolve(return_address);
    const Copy* bound = bound_.load(std::memory_order_acquire);
    if (ABSL_PREDICT_TRUE(copy == bound)) return {copy, true};
    return {copy, BindFromCaller(copy)};
  }

  // The table the pools are built with: all null until a copy is bound.
  const typename Copy::Library* pool_library() const { return &pool_library_; }
  // The bound copy, or null.
  const Copy* bound_copy() const { return bound_.load(std::memory_order_acquire); }
  CodecState state() const {
    return static_cast<CodecState>(state_.load(std::memory_order_acquire));
  }
  // Why the codec is pooled on its copy, or forwarded; "" while unused.
  std::string reason() const;
  // The copies some callers were forwarded to instead, one per copy,
  // "; "-separated: "<object> (private copy)" or "<object> (another copy)"
  // (DisplayName, loaded_objects.h).
  std::string forwarded_callers() const;

  // Pooling is wanted (Configure() with pooling on): remembers the codec's
  // private-layout check, `check_layout(copy)`, run on a copy proven
  // coherent when the codec is bound at its first call (an error stands the
  // codec down, its message the reason), and stands the codec down now if
  // the executable defines its entry points. Idempotent.
  using LayoutCheck = absl::Status (*)(Copy& copy);
  void Arm(LayoutCheck check_layout) noexcept;
  void set_pooling_wanted(bool wanted) { pooling_wanted_.store(wanted); }

 private:
  static constexpr int kHot = 8;
  static constexpr int kKnown = 256;
  struct Hot {
    uintptr_t start;
    uintptr_t size;
    const Copy* copy;
  };
  struct Known {
    LoadedObject caller;
    const Copy* copy;
  };

  // The thread's last hit first (RocksDB's calls come from one object), then
  // the table. Entries are never freed and name objects that are never
  // unloaded, so a thread's stale pointer is still a true answer.
  const Copy* Cached(uintptr_t address) const noexcept {
    if (const Hot* last = last_hot_;
        ABSL_PREDICT_TRUE(last != nullptr) && address - last->start < last->size) {
      return last->copy;
    }
    for (int i = 0; i < kHot; ++i) {
      const Hot* h = hot_[i].load(std::memory_order_acquire);
      if (h == nullptr) break;
      if (address - h->start < h->size) {
        last_hot_ = h;
        return h->copy;
      }
    }
    return nullptr;
  }
  const Copy* Resolve(const void* return_address) noexcept;
  // The registered copy of `resolved`'s object (registering it), or the
  // empty copy when the registry is full.
  Copy* Register(Copy&& resolved) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BindFromCaller(const Copy* copy) noexcept;
  // Binds the global scope's copy, if it has one, or stands the codec down;
  // under bind_mu_, once.
  void BindGlobal() ABSL_EXCLUSIVE_LOCKS_REQUIRED(bind_mu_);
  // Runs the checks and binds, or stands down; under bind_mu_.
  void Bind(Copy* copy) ABSL_EXCLUSIVE_LOCKS_REQUIRED(bind_mu_);
  void StandDown(std::string why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(bind_mu_);

  static inline ROCKPOOL_FAST_TLS const Hot* last_hot_ = nullptr;
  std::atomic<const Hot*> hot_[kHot] = {};
  std::atomic<const Copy*> bound_{nullptr};
  std::atomic<int> state_{static_cast<int>(CodecState::kUnused)};
  std::atomic<bool> pooling_wanted_{false};
  typename Copy::Library pool_library_;
  LayoutCheck check_layout_ = nullptr;

  mutable absl::Mutex mu_{absl::kConstInit};
  const Known* known_[kKnown] ABSL_GUARDED_BY(mu_) = {};
  int known_count_ ABSL_GUARDED_BY(mu_) = 0;
  Copy* copies_[kKnown] ABSL_GUARDED_BY(mu_) = {};
  int copy_count_ ABSL_GUARDED_BY(mu_) = 0;

  mutable absl::Mutex bind_mu_{absl::kConstInit};
  bool global_tried_ ABSL_GUARDED_BY(bind_mu_) = false;
  std::string reason_ ABSL_GUARDED_BY(bind_mu_);
  std::string forwarded_ ABSL_GUARDED_BY(bind_mu_);
};

// The process's three codecs (never destroyed: RocksDB frees contexts from
// static destructors and background threads at exit).
inline CodecRoutes<ZstdCopy>& ZstdRoutes() {
  static CodecRoutes<ZstdCopy>* const routes = new CodecRoutes<ZstdCopy>();
  return *routes;
}
inline CodecRoutes<ZlibCopy>& ZlibRoutes() {
  static CodecRoutes<ZlibCopy>* const routes = new CodecRoutes<ZlibCopy>();
  return *routes;
}
inline CodecRoutes<Lz4Copy>& Lz4Routes() {
  static CodecRoutes<Lz4Copy>* const routes = new CodecRoutes<Lz4Copy>();
  return *routes;
}

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_CODEC_ROUTES_H_
