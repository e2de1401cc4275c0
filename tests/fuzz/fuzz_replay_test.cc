// Replays a fuzz target's seed corpus and saved regression inputs through its
// LLVMFuzzerTestOneInput, in the normal test suite (and under ASan/UBSan in
// CI). Arguments: the corpus directory (must hold at least one input), then
// the regressions directory (may be absent: no crash saved yet).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

std::vector<std::string> g_dirs;

std::vector<std::filesystem::path> InputsUnder(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().filename() != "README.md") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(FuzzReplayTest, EverySeedAndRegressionInputPasses) {
  ASSERT_EQ(g_dirs.size(), 2u) << "usage: <corpus dir> <regressions dir>";
  const std::vector<std::filesystem::path> corpus = InputsUnder(g_dirs[0]);
  ASSERT_FALSE(corpus.empty()) << "no seed inputs under " << g_dirs[0];
  std::vector<std::filesystem::path> inputs = corpus;
  const std::vector<std::filesystem::path> regressions = InputsUnder(g_dirs[1]);
  inputs.insert(inputs.end(), regressions.begin(), regressions.end());
  for (const std::filesystem::path& path : inputs) {
    SCOPED_TRACE(path.string());
    const std::string bytes = ReadFile(path);
    // A failing input aborts inside the target with its FUZZ_CHECK message;
    // print the name first so the log says which one it was.
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
              0);
  }
  std::fprintf(stderr, "replayed %zu seed and %zu regression inputs\n", corpus.size(),
               regressions.size());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) g_dirs.push_back(argv[i]);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  return RUN_ALL_TESTS();
}
