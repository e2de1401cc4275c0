// Pieces the child modes share: progress reporting to the parent, the
// figures every run reports (window measurements, pool counters, the
// allocator that served it), and how a failure inside a run is reported.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_CHILD_SUPPORT_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_CHILD_SUPPORT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "compression/compression_pools.h"
#include "tools/process/active_allocator.h"
#include "tools/process/progress_pipe.h"
#include "tools/process/thinning_series.h"
#include "tools/process/usage.h"
#include "tools/sst_replay/job.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {

// The child's end of the progress pipe, as the engines name it.
using process::ProgressSink;

// A run's chart series (RunResult::series): at most kSeriesPoints, spread
// evenly over the replay however long it runs.
constexpr size_t kSeriesPoints = 512;
using Series = process::ThinningSeries<SeriesPoint>;

// A run's measured window (tools/process/usage.h's OpenWindow), opened
// right after the pools' counters `before` are taken, and the chart series
// sampled in it.
struct Window {
  explicit Window(const CompressionPoolsStats& pools) : before(pools) {}
  // A series point at `x` (SeriesPoint::x); `pools`: the pools' counters now.
  void Sample(double x, const CompressionPoolsStats& pools);
  // Adds to `result` the whole-process figures of [start, end] (`end` taken
  // just before), the pool counters over the window as totals (codec_bytes,
  // codec_calls, contexts_*) and per pool, and the series.
  void AddTo(const process::ProcessSnapshot& end, const CompressionPoolsStats& after,
             RunResult* result) const;

  CompressionPoolsStats before;
  process::ProcessSnapshot start = process::OpenWindow();
  Series series{kSeriesPoints};
};

// The result's facts: allocator, allocator_version, allocator_object,
// allocator_evidence.
void AddAllocatorFacts(const process::ActiveAllocator& active, RunResult* result);

// absl::Status code -> child exit code: 3 for internal failures, else 2.
int ExitCodeFor(const absl::Status& status);

// A failed `s` as Internal, "<what>: <message>" (an ok one as it is): a
// codec, pool or output failure in a run is the tool's, never bad input
// (exit 3).
absl::Status Internal(const absl::Status& s, std::string_view what);
template <typename T>
absl::StatusOr<T> Internal(absl::StatusOr<T> v, std::string_view what) {
  if (v.ok()) return v;
  return Internal(v.status(), what);
}

// A failed `v` (absl::Status or StatusOr) with its message under `code`:
// where the exit code is the caller's to decide, whatever code the callee
// chose. BadInput: InvalidArgument (exit 2); AsInternal: Internal (exit 3).
inline absl::Status Recoded(const absl::Status& s, absl::StatusCode code) {
  return s.ok() ? s : absl::Status(code, s.message());
}
template <typename T>
absl::StatusOr<T> Recoded(absl::StatusOr<T> v, absl::StatusCode code) {
  if (v.ok()) return v;
  return Recoded(v.status(), code);
}
template <typename T>
T BadInput(T v) {
  return Recoded(std::move(v), absl::StatusCode::kInvalidArgument);
}
template <typename T>
T AsInternal(T v) {
  return Recoded(std::move(v), absl::StatusCode::kInternal);
}

// A context leased from `pool` into *out; Internal naming `what` if none.
template <typename Pool, typename Key>
absl::Status LeaseInto(Pool& pool, Key key, std::string_view what, typename Pool::Lease* out) {
  ROCKPOOL_ASSIGN_OR_RETURN(*out, Internal(pool.Acquire(key), what));
  return absl::OkStatus();
}

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_CHILD_SUPPORT_H_
