// LZ4 and LZ4HC compression streams for the pool.
//
// Why: RocksDB 7.x-10.4 creates an LZ4_stream_t (16 KiB) for every LZ4 block
// it writes and an LZ4_streamHC_t (256 KiB) for every LZ4HC block
// (LZ4_createStream[HC] ... LZ4_freeStream[HC] in LZ4_Compress and
// LZ4HC_Compress), the same per-block churn as zlib's deflateInit2.
//
// Each context owns one stream's memory, allocated through its own
// CountingAllocator at the size the copy reports (LZ4_sizeofState[HC]:
// LZ4_MEMORY_USAGE is a build option of liblz4, so the size is the copy's,
// not this header's), and initialised in place with LZ4_initStream[HC]
// (which also refuses a buffer too small or misaligned for the copy).
//
// Reset() is that same full init, so a pooled stream is exactly what
// LZ4_createStream / LZ4_createStreamHC hand out: state zeroed (HC: the
// default level 9). Not LZ4_resetStream_fast / LZ4_resetStreamHC_fast: they
// leave the hash tables dirty, which is only promised to be equivalent for
// the next *_continue call of a caller that asked for it; a caller of
// LZ4_createStream may do anything a new stream allows. The full init is a
// 16 KiB / 256 KiB memset, the work LZ4_createStream[HC] does anyway
// (malloc + memset, calloc), without the allocation.
//
// One key per codec: nothing is fixed at creation (the HC level is set per
// use). Decoding needs no pooled state: an LZ4_streamDecode_t is 32 bytes of
// pointers, and one block decodes with LZ4_decompress_safe_usingDict.
//
// Every lz4 call goes through the Lz4Library the policy was built with
// (codec_library.h).
#ifndef ROCKPOOL_COMPRESSION_LZ4_CONTEXTS_H_
#define ROCKPOOL_COMPRESSION_LZ4_CONTEXTS_H_

#include <lz4.h>
#include <lz4hc.h>

#include <compare>
#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/codec_library.h"
#include "compression/context_pool.h"
#include "compression/counting_allocator.h"

namespace rockpool {

struct Lz4Key {
  auto operator<=>(const Lz4Key&) const = default;
};

// One LZ4 stream (State: LZ4_stream_t or LZ4_streamHC_t) in memory it owns.
template <typename State>
class Lz4Context : public Parkable {
 public:
  explicit Lz4Context(AllocationStats* stats) : allocator_(stats) {}
  ~Lz4Context() { allocator_.Free(memory_); }
  Lz4Context(const Lz4Context&) = delete;
  Lz4Context& operator=(const Lz4Context&) = delete;

  State* get() const { return state_; }
  size_t size() const { return size_; }
  const CountingAllocator& allocator() const { return allocator_; }

 private:
  template <typename>
  friend struct Lz4Policy;
  CountingAllocator allocator_;
  void* memory_ = nullptr;
  State* state_ = nullptr;  // memory_, once the copy initialised it
  size_t size_ = 0;
};

// The pool policy (context_pool.h) of LZ4 and LZ4HC streams; the calls that
// size and initialise each kind are specialised in lz4_contexts.cc.
template <typename State>
struct Lz4Policy {
  using Context = Lz4Context<State>;
  using Key = Lz4Key;
  // The binary's own lz4 (needs :direct_codec_library), or `lib`.
  Lz4Policy() : lib_(&DirectLz4()) {}
  explicit Lz4Policy(const Lz4Library* lib) : lib_(lib) {}
  const Lz4Library& library() const { return *lib_; }
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key& key, AllocationStats* stats);
  absl::Status Reset(Context& context);
  size_t BytesHeld(const Context& context) { return context.size(); }

 private:
  static const char* const kName;
  size_t StateSize() const;
  State* Init(void* memory, size_t size) const;

  const Lz4Library* lib_;
};

using Lz4StreamPolicy = Lz4Policy<LZ4_stream_t>;
using Lz4HcStreamPolicy = Lz4Policy<LZ4_streamHC_t>;
using Lz4StreamContext = Lz4Context<LZ4_stream_t>;
using Lz4HcStreamContext = Lz4Context<LZ4_streamHC_t>;

using Lz4Pool = ContextPool<Lz4StreamPolicy>;
using Lz4HcPool = ContextPool<Lz4HcStreamPolicy>;

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_LZ4_CONTEXTS_H_
