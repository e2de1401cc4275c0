// Fuzz target: the blob-file reader sst_replay replays BlobDB files with
// (tools/sst/blob_file.h). Whatever the bytes, it parses or fails with a
// status naming the file; every record it returns lies inside the bytes,
// in file order, and a footer's count matches the records.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "tools/sst/blob_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rockpool::sst::BlobFile> file = rockpool::sst::ParseBlobFile(bytes, "fuzz-input");
  if (!file.ok()) {
    FUZZ_CHECK_MSG(file.status().message().find("fuzz-input") != std::string_view::npos,
                   file.status().ToString());
    return 0;
  }
  const char* begin = bytes.data();
  const char* end = bytes.data() + bytes.size();
  uint64_t previous = 0;
  for (const rockpool::sst::BlobRecord& r : file->records) {
    FUZZ_CHECK(r.offset < bytes.size() && r.offset >= previous);
    previous = r.offset;
    FUZZ_CHECK(r.key.data() >= begin && r.key.data() + r.key.size() <= end);
    FUZZ_CHECK(r.value.data() >= begin && r.value.data() + r.value.size() <= end);
  }
  if (file->footer.has_value()) FUZZ_CHECK(file->footer->blob_count == file->records.size());
  return 0;
}
