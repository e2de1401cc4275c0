// Writing a file as a guest in someone else's process: only a file this
// process creates itself, never through a link another user planted.
//
// The objects write statistics files at a path their host's environment
// names (ROCKPOOL_STATS, ROCKPOOL_NATIVE_STATS), often in a shared directory
// and maybe as root. A plain fopen(path, "w") or open(O_APPEND) there
// follows a symbolic link another user planted at that name and truncates
// or appends to whatever it points at. So:
//   - The directory is reached one component at a time; a symbolic link on
//     the way is followed only when root or this process's user owns it
//     (the rule fs.protected_symlinks applies in sticky directories, here
//     applied everywhere), and the directory itself must not be writable by
//     every user unless it has the sticky bit (anyone could otherwise swap
//     the file between our steps).
//   - ReplaceOwnFile writes a new file under a name no one can predict,
//     created with O_CREAT | O_EXCL | O_NOFOLLOW, then renames it over the
//     target: the bytes never go through an existing file.
//   - AppendToOwnFile appends only to a regular file this process's user
//     owns, with one link, opened with O_NOFOLLOW (a FIFO never blocks it).
//   - Whatever exists at the target and is not such a file (a symbolic
//     link, dangling or not, a FIFO, a directory, a device, a hard link, a
//     file of another user) is refused: an error, never a write.
// Files are created with `mode` exactly (the umask does not apply): 0600
// unless the user asks for another (ParseFileMode).
//
// Thread-safe, no global state; nothing throws but std::bad_alloc from
// building an error message.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_OWN_FILE_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_OWN_FILE_H_

#include <sys/types.h>

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rockpool {

inline constexpr mode_t kOwnFileMode = 0600;

// Replaces the file at `path` with `contents` as described above. Errors
// (FailedPrecondition for a refused target or directory, the errno's code
// otherwise) name the path and the reason.
absl::Status ReplaceOwnFile(const std::string& path, absl::string_view contents,
                            mode_t mode = kOwnFileMode);

// Appends `contents` to the file at `path` in one write(2) (O_APPEND: lines
// of concurrent processes stay whole), creating it with `mode` if missing.
absl::Status AppendToOwnFile(const std::string& path, absl::string_view contents,
                             mode_t mode = kOwnFileMode);

// OK if the directory that would hold `path` can be reached and written
// safely as described above: for a tool to check a path before it hands it
// to a process (`rockpool run --stats`). FailedPrecondition otherwise.
absl::Status CheckOwnFileDirectory(const std::string& path);

// A file mode given as octal text ("0640", "640"): permission bits only, no
// execute bit and not writable by every user. InvalidArgument otherwise.
absl::StatusOr<mode_t> ParseFileMode(absl::string_view text);

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_OWN_FILE_H_
