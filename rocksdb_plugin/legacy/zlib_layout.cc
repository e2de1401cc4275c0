#include "rocksdb_plugin/legacy/zlib_layout.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/legacy/codec_copies.h"

namespace rockpool::legacy::zlib_layout {
namespace {

constexpr int kStreamSize = static_cast<int>(sizeof(z_stream));

// Input that deflate cannot finish in a tiny output buffer.
std::vector<unsigned char> Noise(size_t n) {
  std::vector<unsigned char> v(n);
  uint32_t x = 2463534242u;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<unsigned char>(x);
  }
  return v;
}

// Every failed check: the layout is not the one rockpool relies on.
absl::Status Failed(std::string what) { return absl::FailedPreconditionError(what); }

enum class Phase { kFresh, kMidStream, kFinished };

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kFresh:
      return "fresh";
    case Phase::kMidStream:
      return "mid-stream";
    case Phase::kFinished:
      return "finished";
  }
  return "?";
}

absl::Status CheckDeflate(const ZlibCopy& z, int window_bits, Phase phase) {
  const std::string what = absl::StrCat("deflate window_bits ", window_bits, " ", PhaseName(phase));
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (z.deflateInit2_(&s, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                      kStreamSize) != Z_OK) {
    return Failed(absl::StrCat(what, ": deflateInit2 failed"));
  }
  if (BackPointer(s.state) != &s) {
    z.deflateEnd(&s);
    return Failed(absl::StrCat(what, ": state does not begin with the back pointer"));
  }
  std::vector<unsigned char> input = Noise(1 << 13);
  std::vector<unsigned char> output(phase == Phase::kFinished ? (1 << 17) : 16);
  if (phase != Phase::kFresh) {
    s.next_in = input.data();
    s.avail_in = static_cast<uInt>(input.size());
    s.next_out = output.data();
    s.avail_out = static_cast<uInt>(output.size());
    const int rc = z.deflate(&s, phase == Phase::kFinished ? Z_FINISH : Z_NO_FLUSH);
    const int want = phase == Phase::kFinished ? Z_STREAM_END : Z_OK;
    if (rc != want) {
      z.deflateEnd(&s);
      return Failed(absl::StrCat(what, ": deflate returned ", rc));
    }
  }
  const int status = DeflateStatus(s.state);
  const int rc = z.deflateEnd(&s);
  if (!ValidDeflateStatus(status)) {
    return Failed(absl::StrCat(what, ": unexpected status field ", status));
  }
  if ((phase == Phase::kMidStream && status != kBusyState) ||
      (phase == Phase::kFinished && status != kFinishState)) {
    return Failed(absl::StrCat(what, ": status field ", status, " does not match the phase"));
  }
  if (rc != DeflateEndResult(status)) {
    return Failed(absl::StrCat(what, ": deflateEnd returned ", rc, ", predicted ",
                               DeflateEndResult(status), " from status ", status));
  }
  return absl::OkStatus();
}

absl::Status CheckInflate(const ZlibCopy& z, int window_bits) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  if (z.inflateInit2_(&s, window_bits, ZLIB_VERSION, kStreamSize) != Z_OK) {
    return Failed(absl::StrCat("inflate window_bits ", window_bits, ": inflateInit2 failed"));
  }
  const bool ok = BackPointer(s.state) == &s;
  z.inflateEnd(&s);
  if (!ok) {
    return Failed(absl::StrCat("inflate window_bits ", window_bits,
                               ": state does not begin with the back pointer"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckZlibLayout(const ZlibCopy& z) {
  if (z.deflate == nullptr) return Failed(absl::StrCat(DisplayName(z.object), " lacks deflate"));
  for (int wb : {-14, 15, 31}) {
    for (Phase p : {Phase::kFresh, Phase::kMidStream, Phase::kFinished}) {
      if (absl::Status checked = CheckDeflate(z, wb, p); !checked.ok()) return checked;
    }
  }
  for (int wb : {-14, 15, 31, 47}) {
    if (absl::Status checked = CheckInflate(z, wb); !checked.ok()) return checked;
  }
  return absl::OkStatus();
}

}  // namespace rockpool::legacy::zlib_layout
