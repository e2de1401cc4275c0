// What the zlib transplant knows about zlib's private stream state, and the
// runtime check that it holds for the libz.so this process runs with.
//
// zlib's internal deflate_state and inflate_state (1.2.9 and later) begin
// with `z_streamp strm`, the back pointer deflateStateCheck/inflateStateCheck
// compare with the stream they are given; deflate_state's next field is
// `int status`, from which deflateEnd derives its return value (Z_DATA_ERROR
// when the stream was freed in the middle of a deflate, BUSY_STATE). Moving a
// state from one z_stream to another therefore means moving the pointer and
// patching the back pointer; ending it without freeing means predicting
// deflateEnd's result from `status`.
//
// CheckZlibLayout() verifies all of this on real streams (raw, zlib and gzip
// framing; fresh, mid-stream and finished) through the real functions, once.
// If anything differs, rockpool forwards every zlib call instead.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZLIB_LAYOUT_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZLIB_LAYOUT_H_

#include <zlib.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "absl/status/status.h"

namespace rockpool::legacy {
struct ZlibCopy;
}  // namespace rockpool::legacy

namespace rockpool::legacy::zlib_layout {

// The first two members of deflate_state (zlib/deflate.h).
struct DeflateStatePrefix {
  z_streamp strm;
  int status;
};

// deflate.h's status values (1.2.12+; GZIP_STATE is new in 1.2.12).
inline constexpr int kInitState = 42;
inline constexpr int kGzipState = 57;
inline constexpr int kExtraState = 69;
inline constexpr int kNameState = 73;
inline constexpr int kCommentState = 91;
inline constexpr int kHcrcState = 103;
inline constexpr int kBusyState = 113;
inline constexpr int kFinishState = 666;

inline z_streamp BackPointer(const void* state) {
  z_streamp p;
  std::memcpy(&p, state, sizeof(p));
  return p;
}

inline void SetBackPointer(void* state, z_streamp strm) { std::memcpy(state, &strm, sizeof(strm)); }

inline int DeflateStatus(const void* state) {
  int status;
  std::memcpy(&status, static_cast<const char*>(state) + offsetof(DeflateStatePrefix, status),
              sizeof(status));
  return status;
}

inline bool ValidDeflateStatus(int status) {
  switch (status) {
    case kInitState:
    case kGzipState:
    case kExtraState:
    case kNameState:
    case kCommentState:
    case kHcrcState:
    case kBusyState:
    case kFinishState:
      return true;
    default:
      return false;
  }
}

// What deflateEnd returns for a valid stream in `status`.
inline int DeflateEndResult(int status) { return status == kBusyState ? Z_DATA_ERROR : Z_OK; }

// Runs the checks on copy `z` (which must be proven coherent first: the
// checks run it): OK if the layout is as described, else
// FailedPrecondition naming the stream and phase that differ.
absl::Status CheckZlibLayout(const ZlibCopy& z);

}  // namespace rockpool::legacy::zlib_layout

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ZLIB_LAYOUT_H_
