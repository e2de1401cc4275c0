#include "tools/sst_replay/stock_patterns.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rockpool::replay {
namespace {

// Paths are relative to the RocksDB source tree; BBTB is
// table/block_based/block_based_table_builder.cc.

// PatternEvent::replayed: blocks mode replays the event, or it is only
// documented.
constexpr bool kReplayed = true;
constexpr bool kDocumentedOnly = false;

// Events whose pattern did not change from 6.29.5 to 11.8.1.
constexpr PatternEvent kBlockRead = {
    "block read",
    "the per-core cached DCtx (no context created)",
    "inflateInit2 per block",
    "util/compression_context_cache.cc CompressionContextCache::GetCachedZSTDUncompressData "
    "(UncompressionContext, 10.4+: BuiltinDecompressorV2OptimizeZstd::DecompressBlock without a "
    "working area); zlib: Zlib_Uncompress (util/compression.h; 10.6+ util/compression.cc); LZ4: "
    "LZ4_Uncompress (util/compression.h; 10.4+ util/compression.cc LZ4_DecompressBlock)",
    kReplayed,
    "LZ4_createStreamDecode per block (32 B, calloc)"};
constexpr PatternEvent kBlobRead = {
    "blob read",
    "the per-core cached DCtx",
    "inflateInit2 per blob",
    "db/blob/blob_file_reader.cc BlobFileReader::UncompressBlobIfNeeded",
    kReplayed,
    "LZ4_createStreamDecode per blob (32 B)"};
constexpr PatternEvent kDictionary = {
    "dictionary (max_dict_bytes > 0)",
    "a ZSTD_CDict digested once per file; blocks compressed with the file's data context",
    "the raw dictionary set per block (deflateSetDictionary)",
    "BBTB BlockBasedTableBuilder::EnterUnbuffered (10.4+: Compressor::MaybeCloneSpecialized)",
    kReplayed,
    "the raw dictionary loaded per block (LZ4_loadDict / LZ4_loadDictHC)"};

constexpr PatternEvent kSstFileShared = {
    "SST file (table builder)",
    "1 ZSTD_CCtx per file (x compression_opts.parallel_threads), shared by data and index blocks",
    "none",
    "BBTB BlockBasedTableBuilder::Rep::Rep (compression_ctxs[i].reset(new "
    "CompressionContext)); util/compression.h CompressionContext::CreateNativeContext",
    kReplayed,
    "none (no native context for LZ4)"};
constexpr PatternEvent kSstFileSeparate = {
    "SST file (table builder)",
    "2 ZSTD_CCtx per file: one working area for index blocks (enable_index_compression) and one "
    "for data blocks",
    "none (the zlib compressor has no working area)",
    "BBTB BlockBasedTableBuilder::Rep::Rep (basic_working_area / index_block_working_area, "
    "data_block_working_area(s) = ObtainWorkingArea()); util/compression.cc "
    "BuiltinCompressorV2::ObtainWorkingArea (10.4-10.5), BuiltinZSTDCompressorV2::"
    "ObtainWorkingArea (10.6+); LZ4: BuiltinLZ4CompressorV2NoDict / WithDict, "
    "BuiltinLZ4HCCompressorV2 ::ObtainWorkingArea (10.7+)",
    kReplayed,
    "LZ4HC: an LZ4_streamHC_t per working area (data, and index when compressed); LZ4: none "
    "without a dictionary, 1 LZ4_stream_t (data area) with one (10.7+; 10.4-10.5 per block, "
    "10.6 an LZ4_stream_t per area)"};
constexpr PatternEvent kDataBlock = {
    "data block",
    "compressed with the file's data context",
    "deflateInit2 + deflateEnd per block",
    "BBTB CompressAndVerifyBlock / CompressBlock; util/compression.h ZSTD_Compress, "
    "Zlib_Compress, LZ4_Compress, LZ4HC_Compress",
    kReplayed,
    "LZ4: LZ4_createStream per block; LZ4HC: LZ4_createStreamHC + LZ4_resetStreamHC per block"};
constexpr PatternEvent kDataBlockWorkingArea = {
    "data block",
    "compressed with the file's data context",
    "deflateInit2 + deflateEnd per block",
    "BBTB CompressAndVerifyBlock; util/compression.cc BuiltinZlibCompressorV2::CompressBlock "
    "(10.6+), BuiltinLZ4CompressorV2NoDict::CompressBlock (LZ4_compress_fast), "
    "BuiltinLZ4HCCompressorV2::CompressBlock (LZ4_resetStreamHC_fast on the area)",
    kReplayed,
    "LZ4HC: the data area, LZ4_resetStreamHC_fast per block; LZ4: LZ4_compress_fast, no stream "
    "(with a dictionary: the data area, LZ4_loadDict per block)"};
constexpr PatternEvent kIndexBlockShared = {"index block (and partitions)",
                                            "compressed with the file's CCtx (compression_ctxs[0])",
                                            "deflateInit2 per index block",
                                            "BBTB BlockBasedTableBuilder::WriteBlock(..., kIndex)",
                                            kReplayed,
                                            "a new stream per index block, as for data blocks"};
constexpr PatternEvent kIndexBlockSeparate = {
    "index block (and partitions)",
    "compressed with the file's index working area",
    "deflateInit2 per index block",
    "BBTB WriteBlock / WriteMaybeCompressedBlock (kIndex)",
    kReplayed,
    "LZ4HC: the index area; LZ4: LZ4_compress_fast, no stream"};
constexpr PatternEvent kVerify = {
    "verify_compression (default off)",
    "an UncompressionContext per file: the per-core cached DCtx", "inflateInit2 per verified block",
    "BBTB Rep::Rep (verify_ctxs / working_area.verify)", kDocumentedOnly};
constexpr PatternEvent kSampleOld = {
    "sample_for_compression (default 0)",
    "a new CompressionContext (ZSTD_CCtx) per sampled block, plus one for LZ4/Snappy",
    "deflateInit2 per sampled block (when zstd is not built in)",
    "BBTB CompressBlock, sampling branch (CompressionContext context(c))", kDocumentedOnly};
constexpr PatternEvent kSample11 = {
    "sample_for_compression (default 0)",
    "a temporary ZSTD_CCtx per sampled block (slow_sample_compressor->CompressBlock with "
    "working_area=nullptr)",
    "deflateInit2 per sampled block (when zstd is not built in)",
    "BBTB BlockBasedTableBuilder::Rep::Rep (fast/slow_sample_compressor), "
    "BlockBasedTableBuilder::CompressAndVerifyBlock sampling",
    kDocumentedOnly};
constexpr PatternEvent kParallelOld = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "parallel_threads CCtxs per file (index blocks on the first)", "unchanged (per block)",
    "BBTB Rep::Rep compression_ctxs(parallel_threads), IsParallelCompressionEnabled, "
    "BGWorkCompression",
    kReplayed};
constexpr PatternEvent kParallel10 = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "more data working areas per file (10.4-10.6: data_block_working_areas[parallel_threads] "
    "beside basic_working_area; 10.7+: one per worker thread); not replayed: stock is a lower "
    "bound",
    "unchanged (per block)",
    "BBTB Rep::Rep (v10.4.2 data_block_working_areas), MaybeStartParallelCompression "
    "(v10.10.1 ParallelCompressionRep::working_areas; off with coupled partitioned filters or a "
    "user-defined index)",
    kDocumentedOnly};
constexpr PatternEvent kParallel11 = {
    "parallel compression (parallel_threads > 1, from OPTIONS)",
    "one more data working area per worker thread, min(parallel_threads, 31) per file; none "
    "when the file uses a dictionary (no data compressor yet when parallelism would start)",
    "unchanged (per block)",
    "BBTB MaybeStartParallelCompression (ParallelCompressionRep::working_areas, "
    "num_worker_threads = min(parallel_threads, ring_buffer_mask); returns early without "
    "data_block_compressor); 11.0-11.1 also off with coupled partitioned filters or a "
    "user-defined index (not detected)",
    kReplayed};
constexpr PatternEvent kBlobPerBlob = {
    "blob written",
    "a CompressionContext (ZSTD_CCtx) per blob",
    "deflateInit2 per blob",
    "db/blob/blob_file_builder.cc BlobFileBuilder::CompressBlobIfNeeded (OLD_CompressData)",
    kReplayed,
    "LZ4_createStream, or LZ4_createStreamHC + LZ4_resetStreamHC, per blob"};
constexpr PatternEvent kBlobPerBuilder = {
    "blob written",
    "1 ZSTD_CCtx per BlobFileBuilder (a flush or compaction job), shared by its blob files",
    "deflateInit2 per blob (no working area)",
    "db/blob/blob_file_builder.cc BlobFileBuilder::BlobFileBuilder (blob_compressor_wa_ = "
    "ObtainWorkingArea()), CompressBlobIfNeeded",
    kReplayed,
    "LZ4HC: 1 LZ4_streamHC_t per BlobFileBuilder; LZ4: none (LZ4_compress_fast)"};
constexpr PatternEvent kSecondaryNone = {
    "compressed secondary cache entry", "none: 6.29.5 has no compressed secondary cache", "none",
    "include/rocksdb/secondary_cache.h (the interface only)", kDocumentedOnly};
constexpr PatternEvent kSecondaryOld = {
    "compressed secondary cache entry",
    "a CompressionContext (ZSTD_CCtx) per Insert; per-core DCtx per Lookup",
    "deflateInit2 per Insert, inflateInit2 per Lookup",
    "cache/compressed_secondary_cache.cc CompressedSecondaryCache::Insert, Lookup",
    kDocumentedOnly};
constexpr PatternEvent kSecondaryNew = {
    "compressed secondary cache entry",
    "a temporary working area (ZSTD_CCtx) per entry: CompressBlock(..., nullptr)",
    "deflateInit2 per Insert, inflateInit2 per Lookup",
    "cache/compressed_secondary_cache.cc CompressedSecondaryCache::InsertInternal, Lookup "
    "(built-in manager whatever compression_manager says)",
    kDocumentedOnly};

// 6.29 to 10.3: one CompressionContext per table builder, shared by data
// and index blocks; a CompressionContext per blob; compression_ctxs per
// parallel thread. Only the compressed secondary cache differs.
StockPattern CompressionContextPattern(const char* key, const char* versions, const char* read_from,
                                       const PatternEvent& secondary) {
  return {.key = key,
          .versions = versions,
          .read_from = read_from,
          .separate_index_context = false,
          .zstd_context_per_blob = true,
          .parallel = ParallelModel::kContextPerThread,
          .lz4 = Lz4Model::kStreamPerBlock,
          .events = {kSstFileShared, kDataBlock, kIndexBlockShared, kDictionary, kVerify,
                     kSampleOld, kParallelOld, kBlobPerBlob, kBlobRead, kBlockRead, secondary}};
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
      CompressionContextPattern("6.29", "6.x (MyRocks on Debian 12: 6.29.5)", "v6.29.5",
                                kSecondaryNone),
      CompressionContextPattern("7.8", "7.x (Debian 12's librocksdb: 7.8.3)", "v7.8.3",
                                kSecondaryOld),
      // Same counts as 7.8; CompressionContext::CreateNativeContext(type,
      // level, checksum) now sets the level and checksum as sticky
      // parameters (util/compression.h, v8.11.4 and v9.11.2).
      CompressionContextPattern("8", "8.0-10.3", "v8.11.4, v9.11.2, v10.2.1", kSecondaryOld),
      // The CompressionManager's working areas: a data and an index area per
      // table builder.
      {.key = "10.4",
       .versions = "10.4-10.x (CompressionManager)",
       .read_from = "v10.4.2, v10.10.1",
       .separate_index_context = true,
       .zstd_context_per_blob = true,
       .parallel = ParallelModel::kNotReplayed,
       .lz4 = Lz4Model::kWorkingAreas,
       .events = {kSstFileSeparate, kDataBlockWorkingArea, kIndexBlockSeparate, kDictionary,
                  kVerify, kSampleOld, kParallel10, kBlobPerBlob, kBlobRead, kBlockRead,
                  kSecondaryNew}},
      // Also a working area per BlobFileBuilder.
      {.key = "11",
       .versions = "11.x",
       .read_from = "v11.8.1 (also v11.0.4: blob_compressor_wa_)",
       .separate_index_context = true,
       .zstd_context_per_blob = false,
       .parallel = ParallelModel::kDataAreaPlusWorkers,
       .lz4 = Lz4Model::kWorkingAreas,
       .events = {kSstFileSeparate, kDataBlockWorkingArea, kIndexBlockSeparate, kDictionary,
                  kVerify, kSample11, kParallel11, kBlobPerBuilder, kBlobRead, kBlockRead,
                  kSecondaryNew}},
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
