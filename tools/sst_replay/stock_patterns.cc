#include "tools/sst_replay/stock_patterns.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rockpool::replay {
namespace {

// Paths are relative to the RocksDB source tree; BBTB is
// table/block_based/block_based_table_builder.cc.

// Events whose pattern did not change from 6.29.5 to 11.8.1.
constexpr PatternEvent kBlockRead = {
    "block read", "the per-core cached DCtx (no context created)", "inflateInit2 per block",
    "util/compression_context_cache.cc CompressionContextCache::GetCachedZSTDUncompressData "
    "(UncompressionContext, 10.4+: BuiltinDecompressorV2OptimizeZstd::DecompressBlock without a "
    "working area); zlib: Zlib_Uncompress (util/compression.h; 10.6+ util/compression.cc)",
    true};
constexpr PatternEvent kBlobRead = {
    "blob read", "the per-core cached DCtx", "inflateInit2 per blob",
    "db/blob/blob_file_reader.cc BlobFileReader::UncompressBlobIfNeeded", true};
constexpr PatternEvent kDictionary = {
    "dictionary (max_dict_bytes > 0)",
    "a ZSTD_CDict digested once per file; blocks compressed with the file's data context",
    "the raw dictionary set per block (deflateSetDictionary)",
    "BBTB BlockBasedTableBuilder::EnterUnbuffered (10.4+: Compressor::MaybeCloneSpecialized)",
    true};

constexpr PatternEvent kSstFileShared = {
    "SST file (table builder)",
    "1 ZSTD_CCtx per file (x compression_opts.parallel_threads), shared by data and index blocks",
    "none",
    "BBTB BlockBasedTableBuilder::Rep::Rep (compression_ctxs[i].reset(new "
    "CompressionContext)); util/compression.h CompressionContext::CreateNativeContext",
    true};
constexpr PatternEvent kSstFileSeparate = {
    "SST file (table builder)",
    "2 ZSTD_CCtx per file: one working area for index blocks (enable_index_compression) and one "
    "for data blocks",
    "none (the zlib compressor has no working area)",
    "BBTB BlockBasedTableBuilder::Rep::Rep (basic_working_area / index_block_working_area, "
    "data_block_working_area(s) = ObtainWorkingArea()); util/compression.cc "
    "BuiltinCompressorV2::ObtainWorkingArea (10.4-10.5), BuiltinZSTDCompressorV2::"
    "ObtainWorkingArea (10.6+)",
    true};
constexpr PatternEvent kDataBlock = {
    "data block", "compressed with the file's data context", "deflateInit2 + deflateEnd per block",
    "BBTB CompressAndVerifyBlock / CompressBlock; util/compression.h ZSTD_Compress, "
    "Zlib_Compress (10.6+: util/compression.cc BuiltinZlibCompressorV2::CompressBlock)",
    true};
constexpr PatternEvent kIndexBlockShared = {
    "index block (and partitions)", "compressed with the file's CCtx (compression_ctxs[0])",
    "deflateInit2 per index block", "BBTB BlockBasedTableBuilder::WriteBlock(..., kIndex)", true};
constexpr PatternEvent kIndexBlockSeparate = {
    "index block (and partitions)", "compressed with the file's index working area",
    "deflateInit2 per index block", "BBTB WriteBlock / WriteMaybeCompressedBlock (kIndex)", true};
constexpr PatternEvent kVerify = {"verify_compression (default off)",
                                  "an UncompressionContext per file: the per-core cached DCtx",
                                  "inflateInit2 per verified block",
                                  "BBTB Rep::Rep (verify_ctxs / working_area.verify)", false};
constexpr PatternEvent kSampleOld = {
    "sample_for_compression (default 0)",
    "a new CompressionContext (ZSTD_CCtx) per sampled block, plus one for LZ4/Snappy",
    "deflateInit2 per sampled block (when zstd is not built in)",
    "BBTB CompressBlock, sampling branch (CompressionContext context(c))", false};
constexpr PatternEvent kSample11 = {
    "sample_for_compression (default 0)",
    "a temporary ZSTD_CCtx per sampled block (slow_sample_compressor->CompressBlock with "
    "working_area=nullptr)",
    "deflateInit2 per sampled block (when zstd is not built in)",
    "BBTB BlockBasedTableBuilder::Rep::Rep (fast/slow_sample_compressor), "
    "BlockBasedTableBuilder::CompressAndVerifyBlock sampling",
    false};
constexpr PatternEvent kParallelOld = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "parallel_threads CCtxs per file (index blocks on the first)", "unchanged (per block)",
    "BBTB Rep::Rep compression_ctxs(parallel_threads), IsParallelCompressionEnabled, "
    "BGWorkCompression",
    true};
constexpr PatternEvent kParallel10 = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "more data working areas per file (10.4-10.6: data_block_working_areas[parallel_threads] "
    "beside basic_working_area; 10.7+: one per worker thread); not replayed: stock is a lower "
    "bound",
    "unchanged (per block)",
    "BBTB Rep::Rep (v10.4.2 data_block_working_areas), MaybeStartParallelCompression "
    "(v10.10.1 ParallelCompressionRep::working_areas; off with coupled partitioned filters or a "
    "user-defined index)",
    false};
constexpr PatternEvent kParallel11 = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "one more data working area per worker thread, min(parallel_threads, 31) per file; none "
    "when the file uses a dictionary (no data compressor yet when parallelism would start)",
    "unchanged (per block)",
    "BBTB MaybeStartParallelCompression (ParallelCompressionRep::working_areas, "
    "num_worker_threads = min(parallel_threads, ring_buffer_mask); returns early without "
    "data_block_compressor); 11.0-11.1 also off with coupled partitioned filters or a "
    "user-defined index (not detected)",
    true};
constexpr PatternEvent kBlobPerBlob = {
    "blob written", "a CompressionContext (ZSTD_CCtx) per blob", "deflateInit2 per blob",
    "db/blob/blob_file_builder.cc BlobFileBuilder::CompressBlobIfNeeded", true};
constexpr PatternEvent kBlobPerBuilder = {
    "blob written",
    "1 ZSTD_CCtx per BlobFileBuilder (a flush or compaction job), shared by its blob files",
    "deflateInit2 per blob (no working area)",
    "db/blob/blob_file_builder.cc BlobFileBuilder::BlobFileBuilder (blob_compressor_wa_ = "
    "ObtainWorkingArea()), CompressBlobIfNeeded",
    true};
constexpr PatternEvent kSecondaryNone = {
    "compressed secondary cache entry", "none: 6.29.5 has no compressed secondary cache", "none",
    "include/rocksdb/secondary_cache.h (the interface only)", false};
constexpr PatternEvent kSecondaryOld = {
    "compressed secondary cache entry",
    "a CompressionContext (ZSTD_CCtx) per Insert; per-core DCtx per Lookup",
    "deflateInit2 per Insert, inflateInit2 per Lookup",
    "cache/compressed_secondary_cache.cc CompressedSecondaryCache::Insert, Lookup", false};
constexpr PatternEvent kSecondaryNew = {
    "compressed secondary cache entry",
    "a temporary working area (ZSTD_CCtx) per entry: CompressBlock(..., nullptr)",
    "deflateInit2 per Insert, inflateInit2 per Lookup",
    "cache/compressed_secondary_cache.cc CompressedSecondaryCache::InsertInternal, Lookup "
    "(built-in manager whatever compression_manager says)",
    false};

const std::vector<StockPattern>* MakePatterns() {
  return new std::vector<StockPattern>{
      {"6.29",
       "6.x (MyRocks on Debian 12: 6.29.5)",
       "v6.29.5",
       false,
       true,
       ParallelModel::kContextPerThread,
       {kSstFileShared, kDataBlock, kIndexBlockShared, kDictionary, kVerify, kSampleOld,
        kParallelOld, kBlobPerBlob, kBlobRead, kBlockRead, kSecondaryNone}},
      {"7.8",
       "7.x (Debian 12's librocksdb: 7.8.3)",
       "v7.8.3",
       false,
       true,
       ParallelModel::kContextPerThread,
       {kSstFileShared, kDataBlock, kIndexBlockShared, kDictionary, kVerify, kSampleOld,
        kParallelOld, kBlobPerBlob, kBlobRead, kBlockRead, kSecondaryOld}},
      // Same counts as 7.8; CompressionContext::CreateNativeContext(type,
      // level, checksum) now sets the level and checksum as sticky
      // parameters (util/compression.h, v8.11.4 and v9.11.2).
      {"8",
       "8.0-10.3",
       "v8.11.4, v9.11.2, v10.2.1",
       false,
       true,
       ParallelModel::kContextPerThread,
       {kSstFileShared, kDataBlock, kIndexBlockShared, kDictionary, kVerify, kSampleOld,
        kParallelOld, kBlobPerBlob, kBlobRead, kBlockRead, kSecondaryOld}},
      {"10.4",
       "10.4-10.x (CompressionManager)",
       "v10.4.2, v10.10.1",
       true,
       true,
       ParallelModel::kNotReplayed,
       {kSstFileSeparate, kDataBlock, kIndexBlockSeparate, kDictionary, kVerify, kSampleOld,
        kParallel10, kBlobPerBlob, kBlobRead, kBlockRead, kSecondaryNew}},
      {"11",
       "11.x",
       "v11.8.1 (also v11.0.4: blob_compressor_wa_)",
       true,
       false,
       ParallelModel::kDataAreaPlusWorkers,
       {kSstFileSeparate, kDataBlock, kIndexBlockSeparate, kDictionary, kVerify, kSample11,
        kParallel11, kBlobPerBuilder, kBlobRead, kBlockRead, kSecondaryNew}},
  };
}

const StockPattern* ByKey(std::string_view key) {
  for (const StockPattern& p : AllPatterns()) {
    if (key == p.key) return &p;
  }
  return nullptr;
}

}  // namespace

const std::vector<StockPattern>& AllPatterns() {
  static const std::vector<StockPattern>* patterns = MakePatterns();
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
  switch (major) {
    case 6:
      return ByKey("6.29");
    case 7:
      return ByKey("7.8");
    case 8:
    case 9:
      return ByKey("8");
    case 10:
      return ByKey(minor < 4 ? "8" : "10.4");
    case 11:
      return ByKey("11");
    default:
      break;
  }
  return bad(major < 6 ? "no pattern for RocksDB before 6.x"
                       : "no pattern for this RocksDB yet (the newest is 11.x)");
}

uint32_t ZstdDataContextsPerSstFile(const StockPattern& p, uint32_t parallel_threads,
                                    bool uses_dictionary) {
  if (parallel_threads <= 1) return 1;
  switch (p.parallel) {
    case ParallelModel::kContextPerThread:
      return parallel_threads;
    case ParallelModel::kDataAreaPlusWorkers:
      // ComputeRingBufferNbits caps the ring at 32 slots (mask 31), and the
      // mask is never below the thread count under that cap.
      return uses_dictionary ? 1 : 1 + std::min<uint32_t>(parallel_threads, 31);
    case ParallelModel::kNotReplayed:
      break;
  }
  return 1;
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
