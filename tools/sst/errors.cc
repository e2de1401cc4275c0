#include "tools/sst/errors.h"

#include "absl/strings/str_format.h"

namespace rockpool::sst {

absl::Status CorruptionError(std::string_view file, uint64_t offset, std::string_view what) {
  return absl::DataLossError(absl::StrFormat("%s: offset %d: %s", file, offset, what));
}

absl::Status UnsupportedError(std::string_view file, uint64_t offset, std::string_view what) {
  return absl::UnimplementedError(
      absl::StrFormat("%s: offset %d: unsupported: %s", file, offset, what));
}

absl::Status WithContext(const absl::Status& status, std::string_view file, uint64_t offset) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrFormat("%s: offset %d: %s", file, offset, status.message()));
}

}  // namespace rockpool::sst
