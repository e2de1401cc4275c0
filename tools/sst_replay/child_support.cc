#include "tools/sst_replay/child_support.h"

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "compression/pool_table.h"

namespace rockpool::replay {

void Window::Sample(double x, const CompressionPoolsStats& pools) {
  const process::MallocCounts now = process::ReadMallocCounts();
  series.Add({x, static_cast<int64_t>(now.bytes - start.malloc.bytes),
              static_cast<int64_t>(pools.Total().library.bytes_allocated -
                                   before.Total().library.bytes_allocated)});
}

void Window::AddTo(const process::ProcessSnapshot& end, const CompressionPoolsStats& after,
                   RunResult* result) const {
  auto& m = result->metrics;
  m["wall_ns"] = end.wall_ns - start.wall_ns;
  m["cpu_ns"] = end.cpu_ns - start.cpu_ns;
  m["minor_faults"] = end.minor_faults - start.minor_faults;
  m["major_faults"] = end.major_faults - start.major_faults;
  m["peak_rss_bytes"] = process::PeakRssBytes();
  m["peak_rss_window_only"] = process::PeakRssIsWindowOnly() ? 1 : 0;
  m["process_bytes"] = static_cast<int64_t>(end.malloc.bytes - start.malloc.bytes);
  m["process_calls"] = static_cast<int64_t>(end.malloc.calls - start.malloc.calls);
  m["process_frees"] = static_cast<int64_t>(end.malloc.frees - start.malloc.frees);
  m["heap_start_bytes"] = start.malloc.live;
  m["heap_end_bytes"] = end.malloc.live;
  m["peak_heap_bytes"] = end.malloc.peak;
  m["malloc_counter_active"] = process::MallocCounterActive() ? 1 : 0;
  result->series = series.points();
  auto add = [&](const std::string& prefix, const PoolStats& b, const PoolStats& a) {
    m[prefix + "created"] = static_cast<int64_t>(a.created - b.created);
    m[prefix + "reused"] = static_cast<int64_t>(a.reused - b.reused);
    m[prefix + "destroyed"] = static_cast<int64_t>(a.destroyed - b.destroyed);
    m[prefix + "bytes"] =
        static_cast<int64_t>(a.library.bytes_allocated - b.library.bytes_allocated);
    m[prefix + "calls"] = static_cast<int64_t>(a.library.allocations - b.library.allocations);
    m[prefix + "peak_in_use"] = static_cast<int64_t>(a.peak_in_use);
    m[prefix + "idle_end"] = static_cast<int64_t>(a.idle);
    m[prefix + "idle_bytes_end"] = static_cast<int64_t>(a.idle_bytes);
  };
  // One group of metrics per pool, "pool_<name>_": a pool added to the
  // table is measured without a change here.
#define ROCKPOOL_ADD_POOL_METRICS(name, ...) add("pool_" #name "_", before.name, after.name);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_ADD_POOL_METRICS)
#undef ROCKPOOL_ADD_POOL_METRICS
  const PoolStats b = before.Total();
  const PoolStats a = after.Total();
  m["codec_bytes"] = static_cast<int64_t>(a.library.bytes_allocated - b.library.bytes_allocated);
  m["codec_calls"] = static_cast<int64_t>(a.library.allocations - b.library.allocations);
  m["contexts_created"] = static_cast<int64_t>(a.created - b.created);
  m["contexts_reused"] = static_cast<int64_t>(a.reused - b.reused);
  m["contexts_destroyed"] = static_cast<int64_t>(a.destroyed - b.destroyed);
  m["contexts_peak_in_use"] = static_cast<int64_t>(a.peak_in_use);
  m["idle_contexts_end"] = static_cast<int64_t>(a.idle);
  m["idle_bytes_end"] = static_cast<int64_t>(a.idle_bytes);
}

void AddAllocatorFacts(const process::ActiveAllocator& active, RunResult* result) {
  result->facts["allocator"] = active.name;
  result->facts["allocator_version"] = active.version;
  result->facts["allocator_object"] = active.object;
  result->facts["allocator_evidence"] = active.evidence;
}

absl::Status Internal(const absl::Status& s, std::string_view what) {
  if (s.ok()) return s;
  return absl::InternalError(
      absl::StrCat(absl::string_view(what.data(), what.size()), ": ", s.message()));
}

int ExitCodeFor(const absl::Status& status) {
  using absl::StatusCode;
  constexpr StatusCode kInternalCodes[] = {
      StatusCode::kInternal,  StatusCode::kUnknown,     StatusCode::kAborted,
      StatusCode::kCancelled, StatusCode::kUnavailable, StatusCode::kFailedPrecondition};
  if (status.ok()) return 0;
  return absl::c_linear_search(kInternalCodes, status.code()) ? 3 : 2;
}

}  // namespace rockpool::replay
