// The scratch directory every job, result and output goes to, and the room
// compaction mode needs there: every run copies its inputs (or the whole
// DB) into it, so before the first run the session checks that its file
// system has room for the copies it keeps at once, says what it will use
// (one line), and refuses to start otherwise.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_ROOM_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_ROOM_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rockpool::replay {

// The scratch directory of one invocation: everything sst_replay writes
// (generated workload, jobs, outputs, copied DBs) goes here; removed at the
// end unless --keep_tmp.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  // A new directory under `parent` ($TMPDIR or /tmp when empty).
  absl::Status Create(std::string parent, bool keep);
  std::string Path(std::string_view name) const;
  const std::string& dir() const { return path_; }
  bool keep() const { return keep_; }

 private:
  std::string path_;
  bool keep_ = false;
};

// Removes a file or directory tree, ignoring errors.
void RemoveQuietly(const std::string& path);

struct ScratchRoom {
  uint64_t bytes_per_copy = 0;  // what one run copies into its scratch DB
  int runs = 0;                 // copies made in all (one per run)
  int copies_at_once = 0;       // copies present at the same time
  uint64_t need_bytes = 0;      // (copies_at_once + 1) * bytes_per_copy
  uint64_t free_bytes = 0;      // what an unprivileged writer may still use
};

// The room `runs` copies of `bytes_per_copy` need. Kept at once: the first
// run's output (the reference every later run is compared with) and the
// latest run's, or every run's with `keep_tmp`. One copy more is the
// compaction's own output: RocksDB writes the new files before it deletes
// the old ones.
ScratchRoom PlanScratchRoom(uint64_t bytes_per_copy, int runs, bool keep_tmp, uint64_t free_bytes);

// Bytes an unprivileged process may still write in `dir`'s file system
// (statvfs: f_bavail * f_frsize). An error names the directory.
absl::StatusOr<uint64_t> FreeBytes(const std::string& dir);

// The line that says what compaction mode will use, e.g.
// "compaction mode copies 1.20 GiB per run into /tmp/sst_replay.x (10 runs,
// 2 copies at once): needs up to 3.60 GiB, 50.0 GiB free".
std::string DescribeScratchRoom(const ScratchRoom& room, const std::string& dir);

// OK when the room fits; otherwise ResourceExhausted with one line naming
// the directory, what is needed and what is free, and the way out
// (--tmpdir).
absl::Status CheckScratchRoom(const ScratchRoom& room, const std::string& dir);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_ROOM_H_
