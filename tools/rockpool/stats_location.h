// Where statistics files go when the user names no path: a directory no
// other user can write, so no one can plant a link or a file there.
//
//   $XDG_RUNTIME_DIR/rockpool   the user's runtime directory (systemd-logind
//                               makes it mode 0700 per login), for a user
//   /run/rockpool               for root without one (a service's own is
//                               RuntimeDirectory=rockpool in its unit)
//
// `rockpool run --stats` writes one file per process there (kDefaultStatsName),
// and `rockpool stats` without a path reads them all.
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_STATS_LOCATION_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_STATS_LOCATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rockpool::cli {

// A process's file in the default directory ("%p": its pid, the objects
// replace it).
inline constexpr char kDefaultStatsName[] = "%p.stats";

// The default directory, as above; with `create`, made (mode 0700) if
// missing. FailedPrecondition when there is none for this user (no
// XDG_RUNTIME_DIR and not root) or when what stands there is not a
// directory of this user's that no one else may write.
absl::StatusOr<std::string> DefaultStatsDirectory(bool create);

// The statistics files in the default directory (names ending in
// ".stats"), sorted; FailedPrecondition naming the directory if it has none.
absl::StatusOr<std::vector<std::string>> DefaultStatsFiles();

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_STATS_LOCATION_H_
