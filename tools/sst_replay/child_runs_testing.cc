// sst_replay's output-damaging test hook, in the testonly target
// //tools/sst_replay:child_runs_testing and so only in :sst_replay_testing,
// the binary the tests run to see a difference reported (exit 1): what ships,
// :sst_replay, can never damage its own output. Linked in, it fills
// RunAlternating's seam (child_runs.h) when the program starts; the flag
// below arms it. Only ever applied to scratch outputs.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/child_runs.h"
#include "tools/sst_replay/compare.h"
#include "tools/status/status_macros.h"

ABSL_FLAG(bool, testonly_corrupt_pooled_output, false,
          "test hook: damage one byte of the first pooled run's output, so the byte-for-byte "
          "check must fail (exit 1)");

namespace rockpool::replay {
namespace {

absl::Status FlipByte(const std::string& path, uint64_t at) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, path);
  char byte = 0;
  bool ok = ::pread(fd, &byte, 1, static_cast<off_t>(at)) == 1;
  byte = static_cast<char>(byte ^ 0x01);
  ok = ok && ::pwrite(fd, &byte, 1, static_cast<off_t>(at)) == 1;
  ::close(fd);
  if (!ok) return absl::InternalError(absl::StrCat("cannot corrupt ", path));
  return absl::OkStatus();
}

// Flips one byte in the middle of the first non-empty compressed block of a
// framed output (compare.h); OK without touching a file that has none.
absl::Status CorruptFirstFramedRecordForTesting(const std::string& path) {
  FramedReader reader(path);
  uint64_t at = 0;  // start of the current record's header
  while (true) {
    ROCKPOOL_ASSIGN_OR_RETURN(const std::optional<FramedRecord> r, reader.Next());
    if (!r.has_value()) return absl::OkStatus();  // nothing compressed
    const size_t size = r->bytes.size();
    if (size > 0) return FlipByte(path, at + kFramedHeaderBytes + size / 2);
    at += kFramedHeaderBytes + size;
  }
}

// Flips one byte in the middle of the first data block of an SST; OK
// without touching a file that has none.
absl::Status CorruptFirstDataBlockForTesting(const std::string& path,
                                             const sst::SstReadOptions& options) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<sst::SstFile> file,
                            sst::SstFile::Open(path, options));
  ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<sst::BlockHandle> handles, file->DataBlockHandles());
  if (handles.empty()) return absl::OkStatus();
  return FlipByte(path, handles.front().offset + handles.front().size / 2);
}

// The seam's hook: with the flag, damages the first output it is handed
// (its framed file, or its first SST's first data block), and nothing after.
absl::Status CorruptFirstPooledOutputForTesting(const RunOutput& output) {
  static bool done = false;  // RunAlternating runs on one thread
  if (!absl::GetFlag(FLAGS_testonly_corrupt_pooled_output) || done) return absl::OkStatus();
  done = true;
  if (!output.framed.empty()) return CorruptFirstFramedRecordForTesting(output.framed);
  if (output.ssts.empty() || output.read_options == nullptr) return absl::OkStatus();
  return CorruptFirstDataBlockForTesting(output.ssts.front().second, *output.read_options);
}

// Set when the program starts: sst_replay_testing's main() never names this
// library, so the seam is filled from here.
[[maybe_unused]] const bool kHookSet = [] {
  pooled_output_hook.store(&CorruptFirstPooledOutputForTesting, std::memory_order_relaxed);
  return true;
}();

}  // namespace
}  // namespace rockpool::replay
