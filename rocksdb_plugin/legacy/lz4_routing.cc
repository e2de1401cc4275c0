// The runtime's side of the LZ4 interposers (interpose_lz4.cc): leases of
// LZ4 and LZ4HC streams handed to callers of LZ4_createStream[HC], and their
// return on LZ4_freeStream[HC].
//
// A stream handed out is parked in its pool and recorded in lz4_handles_
// (handle_registry.h: an LZ4 stream has no field that could lead back to
// its context), tagged with its kind, so either free call finds it.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"

namespace rockpool::legacy::internal {
namespace {

// The registry's value: the parked context, its low bit the kind (contexts
// are at least 8-byte aligned).
constexpr uintptr_t kLz4 = 0;
constexpr uintptr_t kLz4Hc = 1;

// Whether the copy initialises a stream of its own reported size in memory
// from malloc (what every pooled context gets): false if its struct sizes
// or alignment do not fit what rockpool allocates. `then` sees the stream
// just initialised.
template <typename Init, typename Then>
absl::Status InitFits(int size, Init init, const char* what, Then&& then) {
  if (size <= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("lz4: the copy reports a ", what, " of ", size, " bytes"));
  }
  std::unique_ptr<void, decltype(&std::free)> memory(std::malloc(static_cast<size_t>(size)),
                                                     &std::free);
  if (memory == nullptr || init(memory.get(), static_cast<size_t>(size)) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("lz4: the copy refuses to initialise a ", what, " of ", size, " bytes"));
  }
  then(static_cast<const unsigned char*>(memory.get()), size);
  return absl::OkStatus();
}

// Records the header LZ4_initStreamHC leaves (for FreshLz4HcStream), only
// for a copy whose stream is the size this build's lz4hc.h describes.
void RecordFreshHcHeader(Lz4Copy& copy, const unsigned char* stream, int size) {
  if (size != static_cast<int>(sizeof(LZ4_streamHC_t))) return;
  std::memcpy(copy.fresh_hc_header, stream + Lz4Copy::kHcHeaderOffset, Lz4Copy::kHcHeaderBytes);
  copy.fresh_hc_header_known = true;
}

}  // namespace

absl::Status CheckLz4Copy(Lz4Copy& copy) {
  if (copy.LZ4_versionNumber() < 10900) {
    return absl::FailedPreconditionError(
        absl::StrCat("lz4 ", copy.LZ4_versionNumber(), " predates LZ4_initStream (1.9.0)"));
  }
  if (absl::Status fits = InitFits(copy.LZ4_sizeofState(), copy.LZ4_initStream, "LZ4_stream_t",
                                   [](const unsigned char*, int) {});
      !fits.ok()) {
    return fits;
  }
  return InitFits(
      copy.LZ4_sizeofStateHC(), copy.LZ4_initStreamHC, "LZ4_streamHC_t",
      [&copy](const unsigned char* stream, int size) { RecordFreshHcHeader(copy, stream, size); });
}

// Where every use of an LZ4HC stream leaves its trace. liblz4 (1.9.0
// through 1.10, whose layout of LZ4HC_CCtx_internal lz4hc.h gives) writes
// the hash and chain tables only after LZ4HC_init_internal has set
// dictLimit and nextToUpdate to 64 KiB or more, and only a full
// LZ4_initStreamHC, which clears the tables, sets them to 0 again. So a
// stream rockpool handed out (initialised by its pool) whose header is still
// byte for byte what LZ4_initStreamHC leaves has zeroed tables: resetting it
// needs no second clear. A copy of another size never takes this path.
bool Runtime::FreshLz4HcStream(const Lz4Copy& copy, const LZ4_streamHC_t* stream) const noexcept {
  if (!copy.fresh_hc_header_known) return false;
  const uintptr_t tagged = reinterpret_cast<uintptr_t>(lz4_handles_.Find(stream));
  if (tagged == 0 || (tagged & 1) != kLz4Hc) return false;
  return std::memcmp(reinterpret_cast<const unsigned char*>(stream) + Lz4Copy::kHcHeaderOffset,
                     copy.fresh_hc_header, Lz4Copy::kHcHeaderBytes) == 0;
}

bool Runtime::ResetFreshLz4Hc(const Lz4Copy& copy, LZ4_streamHC_t* stream, int level) noexcept {
  if (copy.LZ4_resetStreamHC_fast == nullptr || !FreshLz4HcStream(copy, stream)) return false;
  copy.LZ4_resetStreamHC_fast(stream, level);
  return true;
}

template <typename Pool>
auto Runtime::LeaseLz4From(Pool& pool, uintptr_t kind) noexcept {
  InsideRockpool inside;
  using State = decltype(std::declval<typename Pool::Context&>().get());
  absl::StatusOr<typename Pool::Lease> lease = pool.Acquire(Lz4Key{});
  if (!lease.ok()) return State{nullptr};
  State state = (*lease)->get();
  typename Pool::Context* context = pool.Park(*std::move(lease));
  if (!lz4_handles_.Add(state,
                        reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(context) | kind))) {
    Finish(pool, pool.Unpark(context));  // no room to find it again: not handed out
    return State{nullptr};
  }
  return state;
}

LZ4_stream_t* Runtime::LeaseLz4() noexcept {
  return EnsurePools() ? LeaseLz4From(pools().lz4(), kLz4) : nullptr;
}

LZ4_streamHC_t* Runtime::LeaseLz4Hc() noexcept {
  return EnsurePools() ? LeaseLz4From(pools().lz4hc(), kLz4Hc) : nullptr;
}

bool Runtime::ReturnLz4(const void* state) noexcept {
  void* value = lz4_handles_.Remove(state);
  if (value == nullptr) return false;
  const uintptr_t tagged = reinterpret_cast<uintptr_t>(value);
  void* context = reinterpret_cast<void*>(tagged & ~uintptr_t{1});
  if ((tagged & 1) == kLz4Hc) {
    Finish(pools().lz4hc(), pools().lz4hc().Unpark(static_cast<Lz4HcStreamContext*>(context)));
  } else {
    Finish(pools().lz4(), pools().lz4().Unpark(static_cast<Lz4StreamContext*>(context)));
  }
  return true;
}

}  // namespace rockpool::legacy::internal
