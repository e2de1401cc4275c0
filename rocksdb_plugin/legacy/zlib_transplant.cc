// The zlib transplant, one piece of code for deflate and inflate.
//
// deflateInit2_/inflateInit2_: lease a pooled stream of the call's key and
// move its internal state (and the allocator that owns its memory) into the
// caller's z_stream, exactly as a fresh init would leave it. The context is
// parked in its pool meanwhile (Parkable, compression/pool/thread_front.h).
// deflateEnd/inflateEnd: if the stream allocates through a pooled context's
// allocator (its zalloc/opaque, which the transplant set), that context is
// the one: the state moves back, the lease is unparked and returned. No
// table, lock or allocation per lease.
#include <zlib.h>

#include "compression/zlib_contexts.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"
#include "rocksdb_plugin/legacy/zlib_layout.h"

namespace rockpool::legacy::internal {
namespace {

// Moves the state (and the allocator that owns its memory) of `from` into
// `to`, exactly as a fresh deflateInit2_/inflateInit2_ on `to` would leave
// it: next_in/avail_in/next_out/avail_out untouched, msg null, totals zero.
void MoveState(z_stream* from, z_streamp to) {
  void* state = from->state;
  to->zalloc = from->zalloc;
  to->zfree = from->zfree;
  to->opaque = from->opaque;
  to->state = from->state;
  zlib_layout::SetBackPointer(state, to);
  from->state = nullptr;
  to->msg = from->msg;
  to->total_in = from->total_in;
  to->total_out = from->total_out;
}

// What differs between the two sides.
void KeepsFreshFields(const DeflateKey&, const z_stream& own, z_streamp strm) {
  strm->data_type = own.data_type;
  strm->adler = own.adler;
}
void KeepsFreshFields(const InflateKey& key, const z_stream& own, z_streamp strm) {
  // inflateResetKeep sets adler only for zlib/gzip framing.
  if (key.window_bits >= 0) strm->adler = own.adler;
}

// deflateEnd's result, or false if zlib would reject the stream (it then
// returns Z_STREAM_ERROR and frees nothing; so does the forwarded call).
bool EndResult(DeflateContext*, const void* state, int* rc) {
  const int status = zlib_layout::DeflateStatus(state);
  if (!zlib_layout::ValidDeflateStatus(status)) return false;
  *rc = zlib_layout::DeflateEndResult(status);
  return true;
}
bool EndResult(InflateContext*, const void*, int* rc) {
  *rc = Z_OK;
  return true;
}

}  // namespace

template <typename Side>
bool Runtime::LeaseZlib(z_streamp strm, const typename Side::Key& key) noexcept {
  if (!EnsurePools()) return false;
  InsideRockpool inside;
  auto& pool = Side::pool(pools());
  auto lease = pool.Acquire(key);
  if (!lease.ok()) return false;
  // The context was created or reset: exactly a fresh stream.
  z_stream* own = (**lease).get();
  MoveState(own, strm);
  KeepsFreshFields(key, *own, strm);
  pool.Park(*std::move(lease));
  return true;
}

template <typename Side>
typename Side::Context* Runtime::LeasedZlib(z_streamp strm) const noexcept {
  if (strm == nullptr || strm->state == nullptr) return nullptr;
  typename Side::Context* context = Side::Context::FromStream(*strm);
  if (context == nullptr || !context->parked() || context->get()->state != nullptr) return nullptr;
  // deflateStateCheck's / inflateStateCheck's conditions.
  if (strm->zfree == nullptr || zlib_layout::BackPointer(strm->state) != strm) return nullptr;
  return context;
}

template <typename Side>
bool Runtime::EndZlib(z_streamp strm, int* rc) noexcept {
  typename Side::Context* context = LeasedZlib<Side>(strm);
  if (context == nullptr) return false;
  void* state = strm->state;
  if (!EndResult(context, state, rc)) return false;
  auto& pool = Side::pool(pools());
  auto lease = pool.Unpark(context);
  if (lease == nullptr) return false;  // another pool's context
  z_stream* own = context->get();
  own->state = static_cast<internal_state*>(state);
  zlib_layout::SetBackPointer(state, own);
  // Not left pointing at our allocator: a caller that re-initialises this
  // z_stream without clearing it gets the default allocator, as it would
  // after a real deflateEnd/inflateEnd.
  strm->state = nullptr;
  strm->zalloc = nullptr;
  strm->zfree = nullptr;
  strm->opaque = nullptr;
  Finish(pool, std::move(lease));
  return true;
}

template bool Runtime::LeaseZlib<DeflateSide>(z_streamp, const DeflateKey&) noexcept;
template bool Runtime::LeaseZlib<InflateSide>(z_streamp, const InflateKey&) noexcept;
template bool Runtime::EndZlib<DeflateSide>(z_streamp, int*) noexcept;
template bool Runtime::EndZlib<InflateSide>(z_streamp, int*) noexcept;
template DeflateContext* Runtime::LeasedZlib<DeflateSide>(z_streamp) const noexcept;
template InflateContext* Runtime::LeasedZlib<InflateSide>(z_streamp) const noexcept;

}  // namespace rockpool::legacy::internal
