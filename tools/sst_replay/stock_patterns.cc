#include "tools/sst_replay/stock_patterns.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rockpool::replay {
namespace {

// The same counts from 6.29 to 10.3: one CompressionContext per table
// builder, shared by data and index blocks; a CompressionContext per blob;
// compression_ctxs per parallel thread (README.md beside this file, "Stock
// call patterns", cites the source of each).
StockPattern CompressionContextPattern(const char* key, const char* versions,
                                       const char* read_from) {
  return {.key = key,
          .versions = versions,
          .read_from = read_from,
          .separate_index_context = false,
          .zstd_context_per_blob = true,
          .parallel = ParallelModel::kContextPerThread,
          .lz4 = Lz4Model::kStreamPerBlock};
}

const StockPattern* ByKey(std::string_view key) {
  for (const StockPattern& p : AllPatterns()) {
    if (key == p.key) return &p;
  }
  return nullptr;
}

}  // namespace

const std::vector<StockPattern>& AllPatterns() {
  static const auto* patterns = new std::vector<StockPattern>{
      CompressionContextPattern("6.29", "6.x (MyRocks on Debian 12: 6.29.5)", "v6.29.5"),
      CompressionContextPattern("7.8", "7.x (Debian 12's librocksdb: 7.8.3)", "v7.8.3"),
      // Same counts as 7.8; CompressionContext::CreateNativeContext(type,
      // level, checksum) now sets the level and checksum as sticky
      // parameters (util/compression.h, v8.11.4 and v9.11.2).
      CompressionContextPattern("8", "8.0-10.3", "v8.11.4, v9.11.2, v10.2.1"),
      // The CompressionManager's working areas: a data and an index area per
      // table builder.
      {.key = "10.4",
       .versions = "10.4-10.x (CompressionManager)",
       .read_from = "v10.4.2, v10.10.1",
       .separate_index_context = true,
       .zstd_context_per_blob = true,
       .parallel = ParallelModel::kNotReplayed,
       .lz4 = Lz4Model::kWorkingAreas},
      // Also a working area per BlobFileBuilder.
      {.key = "11",
       .versions = "11.x",
       .read_from = "v11.8.1 (also v11.0.4: blob_compressor_wa_)",
       .separate_index_context = true,
       .zstd_context_per_blob = false,
       .parallel = ParallelModel::kDataAreaPlusWorkers,
       .lz4 = Lz4Model::kWorkingAreas},
  };
  return *patterns;
}

absl::StatusOr<const StockPattern*> PatternForVersion(std::string_view version) {
  const absl::string_view v(version.data(), version.size());
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rocksdb_version=", v, ": ", why,
                     "; want auto, 6.29, 7.8, 8, 9, 10, 10.4, 11 or a version such as 11.8.1"));
  };
  if (v == "10") return ByKey("10.4");  // the newest 10.x; 10.0-10.3 are "9"
  std::vector<absl::string_view> parts = absl::StrSplit(v, '.');
  int major = 0;
  int minor = 0;
  if (parts.empty() || parts.size() > 3 || !absl::SimpleAtoi(parts[0], &major) ||
      (parts.size() > 1 && !absl::SimpleAtoi(parts[1], &minor)) ||
      (parts.size() > 2 && parts[2].empty())) {
    return bad("not a RocksDB version");
  }
  if (major > 11) return bad("no pattern for this RocksDB yet (the newest is 11.x)");
  // The first release of each pattern, newest first.
  static constexpr std::pair<std::pair<int, int>, const char*> kFirst[] = {
      {{11, 0}, "11"}, {{10, 4}, "10.4"}, {{8, 0}, "8"}, {{7, 0}, "7.8"}, {{6, 0}, "6.29"}};
  for (const auto& [first, key] : kFirst) {
    if (std::pair(major, minor) >= first) return ByKey(key);
  }
  return bad("no pattern for RocksDB before 6.x");
}

uint32_t ZstdDataContextsPerSstFile(const StockPattern& p, uint32_t parallel_threads,
                                    bool uses_dictionary) {
  if (parallel_threads <= 1 || p.parallel == ParallelModel::kNotReplayed) return 1;
  if (p.parallel == ParallelModel::kContextPerThread) return parallel_threads;
  // kDataAreaPlusWorkers: ComputeRingBufferNbits caps the ring at 32 slots
  // (mask 31), and the mask is never below the thread count under that cap.
  return uses_dictionary ? 1 : 1 + std::min<uint32_t>(parallel_threads, 31);
}

std::string DescribePattern(const StockPattern& p, std::string_view version) {
  return absl::StrCat("RocksDB ", absl::string_view(version.data(), version.size()),
                      "'s call pattern (pattern ", p.key, ": ", p.versions, ", read from ",
                      p.read_from, ")");
}

std::string SstStockNote(const StockPattern& p, bool parallel) {
  return absl::StrCat(
      "SSTs: stock creates ",
      p.separate_index_context ? "2 zstd CCtxs per file (index and data working areas)"
                               : "a zstd CCtx per file (shared by data and index blocks)",
      !parallel ? ""
      : p.parallel == ParallelModel::kNotReplayed
          ? " (parallel compression's further contexts are not replayed: see the notes above)"
          : " plus parallel compression's (the notes above)",
      ", a deflate stream per data and index block and an inflate stream per block read, and "
      "reuses one zstd DCtx (the per-core cache), all through the counting allocator");
}

std::string Lz4StockNote(const StockPattern& p) {
  if (p.lz4 == Lz4Model::kStreamPerBlock) {
    return "LZ4: stock creates an LZ4_stream_t (16 KiB) per LZ4 block or blob written and an "
           "LZ4_streamHC_t (256 KiB) per LZ4HC one (util/compression.h LZ4_Compress, "
           "LZ4HC_Compress), through the counting allocator; both strategies create an "
           "LZ4_streamDecode_t (32 B) per LZ4 block or blob read, which rockpool does not pool";
  }
  return absl::StrCat(
      "LZ4: stock keeps an LZ4_streamHC_t per working area (a table builder's data and index "
      "areas",
      p.zstd_context_per_blob ? "; a new one per LZ4HC blob" : ", one per blob file",
      "), an LZ4_stream_t per data area only with a dictionary, and compresses other LZ4 blocks "
      "with LZ4_compress_fast (no stream: nothing to pool, pooled does the same",
      p.zstd_context_per_blob ? "; LZ4 blobs: a new LZ4_stream_t per blob" : "",
      "); an LZ4_streamDecode_t (32 B) per block or blob read, in both strategies");
}

std::string BlobStockNote(const StockPattern& p) {
  return absl::StrCat(
      "blobs: stock creates ",
      p.zstd_context_per_blob
          ? "a compression context per blob written (a zstd CCtx or a deflate stream: "
            "BlobFileBuilder::CompressBlobIfNeeded)"
          : "one zstd CCtx per blob file (RocksDB 11.x: one per BlobFileBuilder, i.e. per "
            "flush or compaction job, which may write several files) and a deflate stream per "
            "zlib blob",
      " and an inflate stream per zlib blob read; every compressed blob is decompressed again "
      "and checked");
}

}  // namespace rockpool::replay
