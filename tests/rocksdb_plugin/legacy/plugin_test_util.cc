#include "tests/rocksdb_plugin/legacy/plugin_test_util.h"

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "compression/compression_type.h"
#include "tests/compression/test_data.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/sst_file.h"

namespace rockpool::plugin_test {

namespace fs = std::filesystem;

std::string NewTempDir(const std::string& name) { return ::rockpool::testing::FreshTestDir(name); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

std::string Value(int i, int version, size_t value_size) {
  static const char* const kWords[] = {"alpha",   "bravo", "charlie", "delta",    "echo",
                                       "foxtrot", "golf",  "hotel",   "india",    "juliet",
                                       "kilo",    "lima",  "mike",    "november", "oscar"};
  uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(version) * 40503u;
  x |= 1;
  std::string v = absl::StrCat(i, ":", version, ":");
  while (v.size() < value_size) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    if (x % 4 == 0) {
      v += static_cast<char>('A' + (x >> 7) % 26);
      v += static_cast<char>('a' + (x >> 12) % 26);
    } else {
      v += kWords[(x >> 3) % 15];
    }
    v += ' ';
  }
  v.resize(value_size);
  return v;
}

bool WaitForBackgroundWork(rocksdb::DB* db, int timeout_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    uint64_t pending = 0, compactions = 0, flushes = 0, memtables = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &compactions);
    db->GetIntProperty("rocksdb.num-running-flushes", &flushes);
    db->GetIntProperty("rocksdb.mem-table-flush-pending", &memtables);
    if (pending == 0 && compactions == 0 && flushes == 0 && memtables == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::vector<std::string> SstFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<BlockComparison> CompareDataBlocks(const std::string& dir_a,
                                                  const std::string& dir_b) {
  // On the heap: CompressionPools is 64-byte aligned, which GCC's ASan fake
  // stacks (detect_stack_use_after_return) do not honour.
  auto pools = std::make_unique<CompressionPools>();
  BlockCodecs codecs(pools.get());
  sst::SstReadOptions options;
  options.decompressor = sst::MakeBlockCodecsDecompressor(&codecs);  // index blocks
  const std::vector<std::string> files_a = SstFiles(dir_a);
  const std::vector<std::string> files_b = SstFiles(dir_b);
  if (files_a != files_b) {
    return absl::FailedPreconditionError(
        absl::StrCat("different SST files: ", files_a.size(), " vs ", files_b.size()));
  }
  BlockComparison result;
  for (const std::string& name : files_a) {
    auto a = sst::SstFile::Open(dir_a + "/" + name, options);
    if (!a.ok()) return a.status();
    auto b = sst::SstFile::Open(dir_b + "/" + name, options);
    if (!b.ok()) return b.status();
    auto handles_a = (*a)->DataBlockHandles();
    if (!handles_a.ok()) return handles_a.status();
    auto handles_b = (*b)->DataBlockHandles();
    if (!handles_b.ok()) return handles_b.status();
    if (*handles_a != *handles_b) {
      return absl::DataLossError(absl::StrCat(name, ": data block handles differ (",
                                              handles_a->size(), " vs ", handles_b->size(),
                                              " blocks)"));
    }
    for (const sst::BlockHandle& h : *handles_a) {
      auto block_a = (*a)->ReadRawBlock(h, /*verify_checksum=*/true);
      if (!block_a.ok()) return block_a.status();
      auto block_b = (*b)->ReadRawBlock(h, /*verify_checksum=*/true);
      if (!block_b.ok()) return block_b.status();
      // The payload and its compression type, not the stored checksum:
      // from format_version 6 (RocksDB 8.6's default; Debian 13's 9.10)
      // each file mixes a per-file random value into its blocks'
      // checksums, so two files of identical blocks store different ones
      // (each verified on read above).
      if (block_a->payload() != block_b->payload() ||
          block_a->compression_type != block_b->compression_type) {
        return absl::DataLossError(absl::StrCat(name, ": data block ", h.ToString(), " differs"));
      }
      ++result.data_blocks;
      if (block_a->compression_type == rockpool::compression_type::kZSTD ||
          block_a->compression_type == rockpool::compression_type::kZlib) {
        ++result.compressed_blocks;
      }
    }
    if ((*a)->compression_dictionary() != (*b)->compression_dictionary()) {
      return absl::DataLossError(absl::StrCat(name, ": compression dictionaries differ"));
    }
    if (!(*a)->compression_dictionary().empty()) ++result.files_with_dictionary;
    ++result.files;
  }
  return result;
}

std::vector<std::string> LogLines(const std::string& db_dir, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(db_dir + "/LOG"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

Result Sh(const std::string& command) {
  Result r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

uint64_t Field(const std::string& line, const std::string& section, const std::string& name) {
  const size_t at = line.find(section);
  if (at == std::string::npos) return 0;
  const std::string key = " " + name + "=";
  const size_t k = line.find(key, at);
  if (k == std::string::npos) return 0;
  return std::strtoull(line.c_str() + k + key.size(), nullptr, 10);
}

}  // namespace rockpool::plugin_test
