// Fuzz target: the OPTIONS-file reader (tools/sst/options_file.h), which
// reads the text of any DB's OPTIONS file for sst_replay to choose the stock
// pattern. Whatever the text, the parallel_threads it takes stay within
// kMaxParallelThreads, every compression manager it records is non-empty and
// listed once, and the notes each release line's pattern gives for the file
// (tools/sst_replay/rocksdb_version.h) can be made.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tools/sst/options_file.h"
#include "tools/sst_replay/rocksdb_version.h"
#include "tools/sst_replay/stock_patterns.h"

using rockpool::sst::kMaxParallelThreads;
using rockpool::sst::OptionsFileInfo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const OptionsFileInfo info = rockpool::sst::ParseOptionsText("fuzz-input", text);
  FUZZ_CHECK(info.path == "fuzz-input");
  std::set<std::string> managers;
  for (const std::string& m : info.compression_managers) {
    FUZZ_CHECK(!m.empty() && m != "nullptr");
    FUZZ_CHECK(managers.insert(m).second);
  }
  for (const rockpool::sst::ParallelCompression& p : info.parallel_compression) {
    FUZZ_CHECK(p.threads >= 1 && p.threads <= kMaxParallelThreads);
    FUZZ_CHECK(p.bottommost_threads <= kMaxParallelThreads);
    const uint32_t t = rockpool::sst::ParallelThreadsOf(info, p.column_family);
    FUZZ_CHECK(t >= 1 && t <= kMaxParallelThreads);
  }
  FUZZ_CHECK(rockpool::sst::ParallelThreadsOf(info, "no such family") >= 1);
  const std::vector<OptionsFileInfo> files = {info};
  for (const rockpool::replay::StockPattern& pattern : rockpool::replay::AllPatterns()) {
    for (const std::string& note : rockpool::replay::ParallelCompressionNotes(pattern, files)) {
      FUZZ_CHECK(!note.empty());
    }
  }
  return 0;
}
