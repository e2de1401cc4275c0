#include "tests/tools/sst_replay/sst_replay_test_util.h"

#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "rocksdb/options.h"
#include "tools/sst/blob_file.h"

namespace rockpool::sst_replay_testing {

Snapshot Take(const std::string& path) {
  Snapshot s;
  auto add = [&](const fs::path& p) {
    struct stat st;
    ::stat(p.c_str(), &st);
    s.files[p.string()] = {
        ReadFile(p.string()),
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  };
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) add(e.path());
    }
  } else if (fs::exists(path)) {
    add(path);
  }
  return s;
}

void PatchFile(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

sst::BlockHandle FirstDataBlock(const std::string& path) {
  auto file = sst::SstFile::Open(path, sst_testing::TestReadOptions());
  EXPECT_TRUE(file.ok()) << file.status();
  auto handles = (*file)->DataBlockHandles();
  EXPECT_TRUE(handles.ok() && !handles->empty());
  return handles->front();
}

std::string* SstReplayTest::dir_ = nullptr;
std::string* SstReplayTest::zlib_db_ = nullptr;
SstFixture* SstReplayTest::zstd_ = nullptr;
SstFixture* SstReplayTest::zlib_ = nullptr;
SstFixture* SstReplayTest::dict_ = nullptr;
SstFixture* SstReplayTest::snappy_ = nullptr;
replay_testing::BlobDb* SstReplayTest::zstd_blobs_ = nullptr;
replay_testing::BlobDb* SstReplayTest::zlib_blobs_ = nullptr;

}  // namespace rockpool::sst_replay_testing
