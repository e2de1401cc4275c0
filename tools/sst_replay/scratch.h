// The scratch directory of one sst_replay invocation: everything it writes
// (generated workload, jobs, outputs, copied DBs) goes here, and it is removed
// at the end unless --keep_tmp.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace rockpool::replay {

class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  // A new directory under `parent` ($TMPDIR or /tmp when empty).
  absl::Status Create(std::string parent, bool keep);
  std::string Path(std::string_view name) const;
  bool keep() const { return keep_; }

 private:
  std::string path_;
  bool keep_ = false;
};

// Removes a file or directory tree, ignoring errors.
void RemoveQuietly(const std::string& path);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_SCRATCH_H_
