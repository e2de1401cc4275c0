// operator new and delete for the whole-process malloc counter
// (malloc_counter.c). jemalloc and tcmalloc define their own operator
// new and delete, which do not call malloc: preloaded, they would serve
// every C++ allocation of the process uncounted. So the executable defines
// them too, forwarding each to the next definition (the preloaded
// allocator's, else libstdc++'s): the allocator's own are counted here,
// libstdc++'s call malloc and are counted there.
#include <dlfcn.h>

#include <cstddef>
#include <new>
#include <type_traits>

#include "tools/process/malloc_counter_internal.h"

#ifndef ROCKPOOL_NO_MALLOC_COUNTER

extern "C" {
void* malloc(size_t size);
void free(void* ptr);
void* memalign(size_t alignment, size_t size);
}

namespace {

enum Op {
  kNew,
  kNewArray,
  kNewNothrow,
  kNewArrayNothrow,
  kNewAligned,
  kNewArrayAligned,
  kNewAlignedNothrow,
  kNewArrayAlignedNothrow,
  kDelete,
  kDeleteArray,
  kDeleteSized,
  kDeleteArraySized,
  kDeleteNothrow,
  kDeleteArrayNothrow,
  kDeleteAligned,
  kDeleteArrayAligned,
  kDeleteSizedAligned,
  kDeleteArraySizedAligned,
  kDeleteAlignedNothrow,
  kDeleteArrayAlignedNothrow,
  kOps
};

// The Itanium C++ ABI names of the ops, in Op order.
constexpr const char* kNames[kOps] = {"_Znwm",
                                      "_Znam",
                                      "_ZnwmRKSt9nothrow_t",
                                      "_ZnamRKSt9nothrow_t",
                                      "_ZnwmSt11align_val_t",
                                      "_ZnamSt11align_val_t",
                                      "_ZnwmSt11align_val_tRKSt9nothrow_t",
                                      "_ZnamSt11align_val_tRKSt9nothrow_t",
                                      "_ZdlPv",
                                      "_ZdaPv",
                                      "_ZdlPvm",
                                      "_ZdaPvm",
                                      "_ZdlPvRKSt9nothrow_t",
                                      "_ZdaPvRKSt9nothrow_t",
                                      "_ZdlPvSt11align_val_t",
                                      "_ZdaPvSt11align_val_t",
                                      "_ZdlPvmSt11align_val_t",
                                      "_ZdaPvmSt11align_val_t",
                                      "_ZdlPvSt11align_val_tRKSt9nothrow_t",
                                      "_ZdaPvSt11align_val_tRKSt9nothrow_t"};

struct Target {
  void* fn = nullptr;
  bool counted = false;
};
Target g_targets[kOps];

// Without a next definition (or while it is being looked up): what
// libstdc++'s do, on the counted malloc.
void* Fallback(std::size_t n, std::size_t align, bool nothrow) {
  if (n == 0) n = 1;
  for (;;) {
    void* p = align > 0 ? memalign(align, n) : malloc(n);
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    if (!nothrow) {
      handler();
      continue;
    }
    try {
      handler();
    } catch (...) {
      return nullptr;
    }
  }
}

// Marks this thread as inside the serving allocator (counted targets only:
// libstdc++'s operator new must reach the counted malloc).
class Inside {
 public:
  explicit Inside(bool counted) : set_(counted && rockpool_counter_inside == 0) {
    if (set_) rockpool_counter_inside = 1;
  }
  ~Inside() {
    if (set_) rockpool_counter_inside = 0;
  }
  bool counts() const { return set_; }

 private:
  const bool set_;
};

template <typename... Args>
void* CallNew(Op op, std::size_t n, std::size_t align, bool nothrow,
              std::type_identity_t<Args>... args) {
  if (rockpool_counter_ready() != 0 && g_targets[op].fn != nullptr) {
    auto fn = reinterpret_cast<void* (*)(std::size_t, Args...)>(g_targets[op].fn);
    Inside inside(g_targets[op].counted);
    void* p = fn(n, args...);
    if (inside.counts()) rockpool_counter_on_alloc(p, n);
    return p;
  }
  return Fallback(n, align, nothrow);
}

template <typename... Args>
void CallDelete(Op op, void* p, std::type_identity_t<Args>... args) {
  if (p == nullptr) return;
  if (rockpool_counter_ready() != 0 && g_targets[op].fn != nullptr &&
      rockpool_counter_in_bootstrap(p) == 0) {
    Inside inside(g_targets[op].counted);
    if (inside.counts()) rockpool_counter_on_free(p);
    reinterpret_cast<void (*)(void*, Args...)>(g_targets[op].fn)(p, args...);
    return;
  }
  free(p);
}

std::size_t A(std::align_val_t a) { return static_cast<std::size_t>(a); }

}  // namespace

extern "C" void rockpool_counter_resolve_new(const void* malloc_target) {
  for (int op = 0; op < kOps; ++op) {
    g_targets[op].fn = dlsym(RTLD_NEXT, kNames[op]);
    g_targets[op].counted = rockpool_counter_same_object(g_targets[op].fn, malloc_target) != 0;
  }
}

extern "C" void rockpool_counter_new_targets(const void** operator_new, int* counted) {
  *operator_new = g_targets[kNew].fn;
  *counted = g_targets[kNew].counted ? 1 : 0;
}

using std::align_val_t;
using std::nothrow_t;
using std::size_t;

void* operator new(size_t n) { return CallNew<>(kNew, n, 0, false); }
void* operator new[](size_t n) { return CallNew<>(kNewArray, n, 0, false); }
void* operator new(size_t n, const nothrow_t& t) noexcept {
  return CallNew<const nothrow_t&>(kNewNothrow, n, 0, true, t);
}
void* operator new[](size_t n, const nothrow_t& t) noexcept {
  return CallNew<const nothrow_t&>(kNewArrayNothrow, n, 0, true, t);
}
void* operator new(size_t n, align_val_t a) {
  return CallNew<align_val_t>(kNewAligned, n, A(a), false, a);
}
void* operator new[](size_t n, align_val_t a) {
  return CallNew<align_val_t>(kNewArrayAligned, n, A(a), false, a);
}
void* operator new(size_t n, align_val_t a, const nothrow_t& t) noexcept {
  return CallNew<align_val_t, const nothrow_t&>(kNewAlignedNothrow, n, A(a), true, a, t);
}
void* operator new[](size_t n, align_val_t a, const nothrow_t& t) noexcept {
  return CallNew<align_val_t, const nothrow_t&>(kNewArrayAlignedNothrow, n, A(a), true, a, t);
}

void operator delete(void* p) noexcept { CallDelete<>(kDelete, p); }
void operator delete[](void* p) noexcept { CallDelete<>(kDeleteArray, p); }
void operator delete(void* p, size_t n) noexcept { CallDelete<size_t>(kDeleteSized, p, n); }
void operator delete[](void* p, size_t n) noexcept { CallDelete<size_t>(kDeleteArraySized, p, n); }
void operator delete(void* p, const nothrow_t& t) noexcept {
  CallDelete<const nothrow_t&>(kDeleteNothrow, p, t);
}
void operator delete[](void* p, const nothrow_t& t) noexcept {
  CallDelete<const nothrow_t&>(kDeleteArrayNothrow, p, t);
}
void operator delete(void* p, align_val_t a) noexcept {
  CallDelete<align_val_t>(kDeleteAligned, p, a);
}
void operator delete[](void* p, align_val_t a) noexcept {
  CallDelete<align_val_t>(kDeleteArrayAligned, p, a);
}
void operator delete(void* p, size_t n, align_val_t a) noexcept {
  CallDelete<size_t, align_val_t>(kDeleteSizedAligned, p, n, a);
}
void operator delete[](void* p, size_t n, align_val_t a) noexcept {
  CallDelete<size_t, align_val_t>(kDeleteArraySizedAligned, p, n, a);
}
void operator delete(void* p, align_val_t a, const nothrow_t& t) noexcept {
  CallDelete<align_val_t, const nothrow_t&>(kDeleteAlignedNothrow, p, a, t);
}
void operator delete[](void* p, align_val_t a, const nothrow_t& t) noexcept {
  CallDelete<align_val_t, const nothrow_t&>(kDeleteArrayAlignedNothrow, p, a, t);
}

#endif  // ROCKPOOL_NO_MALLOC_COUNTER
