#include "tools/sst_replay/block_replay.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "compression/block_codecs.h"
#include "compression/compression_type.h"
#include "compression/zstd_dictionary.h"
#include "tools/process/usage.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/data_block_builder.h"
#include "tools/sst/errors.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/lz4_replay.h"
#include "tools/sst_replay/stock_patterns.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

class Replayer {
 public:
  Replayer(const Job& job, RunResult* result, ProgressSink* progress)
      : job_(job),
        result_(result),
        progress_(progress),
        pools_(PoolOptionsFor(job)),
        codecs_(&pools_) {
    if (job.strategy == Strategy::kStock) {
      // RocksDB 7.8.3 decompresses zstd with a per-core cached DCtx that
      // lives as long as the process: one context, reused.
      PoolOptions dctx;
      dctx.max_retained_per_key = 1;
      dctx.idle_timeout = absl::InfiniteDuration();
      pools_.zstd_decompress().SetOptions(dctx);
    }
    read_options_.verify_checksums = job.verify_checksums;
    // RocksDB's decode stream around every LZ4 block it reads.
    read_options_.decompressor = [inner = sst::MakeBlockCodecsDecompressor(&codecs_)](
                                     uint8_t type, std::string_view payload,
                                     std::string_view dictionary, std::string* out) {
      const Lz4ReadStream stream = OpenLz4ReadStream(type);
      return inner(type, payload, dictionary, out);
    };
  }

  absl::Status Run() {
    ROCKPOOL_ASSIGN_OR_RETURN(pattern_, Internal(PatternForVersion(job_.pattern), "job"));
    lz4_ = std::make_unique<Lz4FileReplay>(&pools_, *pattern_);
    ROCKPOOL_RETURN_IF_ERROR(Internal(writer_.Open(job_.output), "output"));
    compressed_.reserve(size_t{1} << 16);
    if (job_.block_size > 0) builder_ = std::make_unique<sst::DataBlockBuilder>(job_.block_size);

    window_.emplace(pools_.stats());
    Sample();
    for (size_t i = 0; i < job_.files.size(); ++i) {
      ROCKPOOL_RETURN_IF_ERROR(ReplayFile(static_cast<uint32_t>(i), job_.files[i]));
    }
    for (size_t i = 0; i < job_.blobs.size(); ++i) {
      ROCKPOOL_RETURN_IF_ERROR(
          ReplayBlobFile(static_cast<uint32_t>(job_.files.size() + i), job_.blobs[i]));
    }
    Sample();
    const process::ProcessSnapshot end = process::TakeSnapshot();
    const CompressionPoolsStats pools_after = pools_.stats();
    progress_->Report(1.0);

    ROCKPOOL_RETURN_IF_ERROR(Internal(writer_.Flush(), "output"));
    window_->AddTo(end, pools_after, result_);
    result_->metrics["files"] = static_cast<int64_t>(job_.files.size());
    result_->metrics["blob_files"] = static_cast<int64_t>(job_.blobs.size());
    return absl::OkStatus();
  }

 private:
  static PoolOptions PoolOptionsFor(const Job& job) {
    PoolOptions o;
    o.max_retained_per_key = job.strategy == Strategy::kStock ? 0 : job.max_idle_per_key;
    o.idle_timeout = absl::Seconds(60);
    return o;
  }

  // How one SST file is compressed: its codec and dictionary, and the table
  // builder's contexts while the file is built (LZ4's: lz4_).
  struct FileCodec {
    explicit FileCodec(const BlocksFile& file)
        : bf(file),
          zstd(file.codec.type == rockpool::compression_type::kZSTD),
          lz4(IsLz4Type(file.codec.type)) {
      data.type = file.codec.type;
      data.level = file.codec.level;
      data.window_bits = file.codec.window_bits;
      data.strategy = file.codec.strategy;
    }
    const BlocksFile& bf;
    const bool zstd;
    const bool lz4;  // LZ4 or LZ4HC
    std::shared_ptr<const ZstdDictionary> zstd_dict;
    BlockCompression data;  // the file's options and dictionary, no context held
    // The table builder's zstd contexts: one per file, shared by data and
    // index blocks, or (10.4+) a data and an index working area; with
    // parallel compression more for data blocks (stock_patterns.h), which
    // take turns as RocksDB's threads would.
    std::vector<ZstdCompressPool::Lease> cctxs;
    ZstdCompressPool::Lease index_cctx;
    uint64_t blocks = 0;
  };

  // One SST file, as RocksDB's table builder would write it.
  absl::Status ReplayFile(uint32_t index, const BlocksFile& bf) {
    ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<sst::SstFile> file,
                              sst::SstFile::Open(bf.path, read_options_));
    ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<sst::BlockHandle> handles,
                              file->DataBlockHandles());
    FileCodec codec(bf);
    const std::string_view dict = file->compression_dictionary();
    if (bf.use_dictionary && !dict.empty() && codec.zstd) {
      // RocksDB digests the dictionary once per file it builds.
      ROCKPOOL_ASSIGN_OR_RETURN(
          codec.zstd_dict,
          Internal(ZstdDictionary::Create(dict, bf.codec.level), "zstd dictionary"));
      codec.data.zstd_dictionary = codec.zstd_dict.get();
    } else if (bf.use_dictionary) {
      codec.data.raw_dictionary = dict;
    }
    // Index blocks (partitions, then the top level) are compressed too if
    // the file stores any of them compressed (enable_index_compression).
    ROCKPOOL_ASSIGN_OR_RETURN(std::vector<sst::BlockHandle> index_handles,
                              file->IndexPartitionHandles());
    index_handles.push_back(file->index_handle());
    std::vector<sst::RawBlock> index_blocks;
    bool index_compressed = false;
    for (const sst::BlockHandle& h : index_handles) {
      ROCKPOOL_ASSIGN_OR_RETURN(sst::RawBlock raw, file->ReadRawBlock(h, job_.verify_checksums));
      index_compressed |= raw.compression_type != rockpool::compression_type::kNone;
      index_blocks.push_back(std::move(raw));
    }
    ROCKPOOL_RETURN_IF_ERROR(AcquireFileContexts(index_compressed, &codec));
    ROCKPOOL_RETURN_IF_ERROR(ReplayDataBlocks(index, *file, handles, codec));
    if (index_compressed) ROCKPOOL_RETURN_IF_ERROR(CompressIndexBlocks(*file, index_blocks, codec));
    codec.index_cctx.reset();
    codec.cctxs.clear();  // the table builder is done: its contexts go
    lz4_->Finish();
    return absl::OkStatus();
  }

  // The file's zstd or LZ4 contexts (zlib has none: a deflate stream per block).
  absl::Status AcquireFileContexts(bool index_compressed, FileCodec* codec) {
    if (codec->lz4) {
      return lz4_->StartSst(codec->bf.codec, !codec->data.raw_dictionary.empty(), index_compressed);
    }
    if (codec->zstd) {
      codec->cctxs.resize(ZstdDataContextsPerSstFile(*pattern_, codec->bf.codec.parallel_threads,
                                                     codec->zstd_dict != nullptr));
      for (ZstdCompressPool::Lease& cctx : codec->cctxs) {
        ROCKPOOL_RETURN_IF_ERROR(AcquireCCtx(&cctx));
      }
      if (pattern_->separate_index_context && index_compressed) {
        ROCKPOOL_RETURN_IF_ERROR(AcquireCCtx(&codec->index_cctx));
      }
    }
    return absl::OkStatus();
  }

  // The data blocks as stored, or re-blocked to job_.block_size.
  absl::Status ReplayDataBlocks(uint32_t index, const sst::SstFile& file,
                                const std::vector<sst::BlockHandle>& handles, FileCodec& codec) {
    uint64_t block_start_offset = 0;
    for (const sst::BlockHandle& h : handles) {
      ROCKPOOL_ASSIGN_OR_RETURN(const sst::RawBlock raw,
                                file.ReadRawBlock(h, job_.verify_checksums));
      ROCKPOOL_ASSIGN_OR_RETURN(const std::string contents,
                                file.Decompress(raw, sst::BlockKind::kData));
      ++source_blocks_;
      if (builder_ == nullptr) {
        ROCKPOOL_RETURN_IF_ERROR(CompressDataBlock(index, codec, contents, h.offset));
      } else {
        absl::StatusOr<sst::BlockIterator> it = sst::BlockIterator::Create(contents);
        if (!it.ok()) return sst::WithContext(it.status(), codec.bf.path, h.offset);
        if (builder_->empty()) block_start_offset = h.offset;
        while (it->Next()) {
          if (builder_->IsFull(it->key(), it->value())) {
            ROCKPOOL_RETURN_IF_ERROR(CutBlock(index, codec, block_start_offset));
            block_start_offset = h.offset;
          }
          builder_->Add(it->key(), it->value());
        }
        if (!it->status().ok()) return sst::WithContext(it->status(), codec.bf.path, h.offset);
      }
      ReportProgress(h.size);
    }
    return builder_ == nullptr ? absl::OkStatus() : CutBlock(index, codec, block_start_offset);
  }

  // The re-blocked data so far, if any, as one data block that began at
  // `source_offset`.
  absl::Status CutBlock(uint32_t index, FileCodec& codec, uint64_t source_offset) {
    if (builder_->empty()) return absl::OkStatus();
    const absl::Status s = CompressDataBlock(index, codec, builder_->Finish(), source_offset);
    builder_->Reset();
    return s;
  }

  // One data block: compressed, written to the output, counted.
  absl::Status CompressDataBlock(uint32_t index, FileCodec& codec, std::string_view block,
                                 uint64_t source_offset) {
    BlockCompression how = codec.data;
    if (codec.zstd) how.zstd_cctx = codec.cctxs[codec.blocks++ % codec.cctxs.size()]->get();
    if (codec.lz4) lz4_->HoldForData(&how);
    const absl::Status s = codecs_.Compress(block, how, &compressed_);
    if (absl::IsFailedPrecondition(s)) {
      compressed_.clear();  // over deflateBound: RocksDB stores it raw
    } else if (!s.ok()) {
      return Internal(s, absl::StrCat(codec.bf.path, ": offset ", source_offset));
    }
    const bool keep = s.ok() && GoodCompressionRatio(compressed_.size(), block.size());
    ++blocks_;
    if (!keep) ++stored_raw_;
    return Emit(index, source_offset, block.size(), keep ? compressed_.size() : block.size());
  }

  // compressed_, made of `raw_size` bytes and stored as `stored_size`:
  // written to the output and counted (blocks and blobs alike).
  absl::Status Emit(uint32_t index, uint64_t source_offset, size_t raw_size, size_t stored_size) {
    ROCKPOOL_RETURN_IF_ERROR(Internal(writer_.Append(index, source_offset, compressed_), "output"));
    uncompressed_ += raw_size;
    compressed_total_ += compressed_.size();
    stored_ += stored_size;
    if (window_->series.Due()) Sample();
    return absl::OkStatus();
  }

  // The index blocks, compressed as the table builder would (not written):
  // on the file's context or its index working area, never with the
  // dictionary (RocksDB uses it for data blocks only).
  absl::Status CompressIndexBlocks(const sst::SstFile& file,
                                   const std::vector<sst::RawBlock>& index_blocks,
                                   const FileCodec& codec) {
    BlockCompression how = codec.data;
    how.zstd_dictionary = nullptr;
    how.raw_dictionary = {};
    if (codec.zstd) {
      how.zstd_cctx = codec.index_cctx ? codec.index_cctx->get() : codec.cctxs.front()->get();
    }
    if (codec.lz4) lz4_->HoldForIndex(&how);
    for (const sst::RawBlock& raw : index_blocks) {
      ROCKPOOL_ASSIGN_OR_RETURN(const std::string contents,
                                file.Decompress(raw, sst::BlockKind::kIndex));
      const absl::Status s = codecs_.Compress(contents, how, &compressed_);
      if (!s.ok() && !absl::IsFailedPrecondition(s)) {
        return Internal(s, absl::StrCat(codec.bf.path, ": index block at ", raw.handle.offset));
      }
      ++index_blocks_;
    }
    return absl::OkStatus();
  }

  absl::Status AcquireCCtx(ZstdCompressPool::Lease* out) {
    return LeaseInto(pools_.zstd_compress(), ZstdKey{}, "zstd context", out);
  }

  // One blob file, record by record, as the pattern's BlobFileBuilder
  // writes it (up to 10.x CompressBlobIfNeeded: a CompressionContext per
  // blob, i.e. a new ZSTD_CCtx or deflateInit2 each time; 11.x: one zstd
  // working area per builder, deflateInit2 per blob; default CompressionOptions,
  // format version 2, kept whatever the ratio) and BlobFileReader reads it
  // (zstd: the per-core DCtx; zlib: inflateInit2 per blob). Each compressed
  // blob is decompressed again and must equal the value.
  absl::Status ReplayBlobFile(uint32_t index, const BlocksFile& bf) {
    ROCKPOOL_ASSIGN_OR_RETURN(const MappedFile mapped, MappedFile::Open(bf.path));
    ROCKPOOL_ASSIGN_OR_RETURN(const sst::BlobFile file, sst::ParseBlobFile(mapped.data(), bf.path));
    BlockCompression how;  // default CompressionOptions but the level
    how.type = bf.codec.type;
    how.level = bf.codec.level;
    // RocksDB 11.x: one zstd working area per BlobFileBuilder (here: per
    // blob file); before, a CompressionContext per blob (none held: the
    // codec leases one per blob).
    ZstdCompressPool::Lease file_cctx;
    if (how.type == rockpool::compression_type::kZSTD && !pattern_->zstd_context_per_blob) {
      ROCKPOOL_RETURN_IF_ERROR(AcquireCCtx(&file_cctx));
      how.zstd_cctx = file_cctx->get();
    }
    if (IsLz4Type(how.type)) {
      ROCKPOOL_RETURN_IF_ERROR(Internal(lz4_->StartBlobFile(bf.codec), bf.path));
      lz4_->HoldForData(&how);
    }
    for (const sst::BlobRecord& r : file.records) {
      ROCKPOOL_RETURN_IF_ERROR(ReplayBlob(index, bf.path, file.header.compression, how, r));
    }
    lz4_->Finish();
    return absl::OkStatus();
  }

  // One blob record: its value read as BlobFileReader does (a blob stored
  // compressed is decompressed), compressed as BlobFileBuilder does,
  // decompressed again and checked against the value, written, counted.
  absl::Status ReplayBlob(uint32_t index, const std::string& path, uint8_t stored_type,
                          const BlockCompression& how, const sst::BlobRecord& r) {
    std::string_view value = r.value;
    if (stored_type != rockpool::compression_type::kNone) {
      const Lz4ReadStream read_stream = OpenLz4ReadStream(stored_type);  // BlobFileReader's
      if (absl::Status s = codecs_.Decompress(stored_type, r.value, nullptr, &blob_value_);
          !s.ok()) {
        return sst::CorruptionError(path, r.offset,
                                    absl::StrCat("blob does not decompress: ", s.message()));
      }
      value = blob_value_;
    }
    if (absl::Status s = codecs_.Compress(value, how, &compressed_); !s.ok()) {
      return Internal(s, absl::StrCat(path, ": offset ", r.offset));
    }
    if (absl::Status d = codecs_.Decompress(how.type, compressed_, nullptr, &round_trip_);
        !d.ok()) {
      return Internal(d, absl::StrCat(path, ": offset ", r.offset, ": round trip"));
    }
    if (round_trip_ != value) {
      return absl::InternalError(
          absl::StrCat(path, ": offset ", r.offset, ": blob round trip differs from the value"));
    }
    ROCKPOOL_RETURN_IF_ERROR(Emit(index, r.offset, value.size(), compressed_.size()));
    ++blobs_;
    blob_uncompressed_ += value.size();
    blob_compressed_ += compressed_.size();
    ReportProgress(r.value.size());
    return absl::OkStatus();
  }

  // `stored_bytes` more of the inputs replayed.
  void ReportProgress(uint64_t stored_bytes) {
    stored_done_ += stored_bytes;
    if (job_.total_stored_bytes > 0) {
      progress_->Report(static_cast<double>(stored_done_) /
                        static_cast<double>(job_.total_stored_bytes));
    }
  }

  void Sample() {
    window_->Sample(static_cast<double>(uncompressed_) / (1024.0 * 1024.0), pools_.stats());
  }

  const Job& job_;
  const StockPattern* pattern_ = nullptr;
  RunResult* const result_;
  ProgressSink* const progress_;
  CompressionPools pools_;
  BlockCodecs codecs_;
  std::unique_ptr<Lz4FileReplay> lz4_;  // once the pattern is known
  sst::SstReadOptions read_options_;
  FramedWriter writer_;
  std::unique_ptr<sst::DataBlockBuilder> builder_;
  std::string compressed_;
  std::string blob_value_;
  std::string round_trip_;
  std::optional<Window> window_;  // once the replay begins
  uint64_t stored_done_ = 0;      // progress
  // The counts, kept in the result's metrics under their names: the entries
  // exist before the window, so counting never allocates.
  int64_t& source_blocks_ = result_->metrics["source_blocks"];
  int64_t& blocks_ = result_->metrics["blocks"];
  int64_t& uncompressed_ = result_->metrics["uncompressed_bytes"];
  int64_t& compressed_total_ = result_->metrics["compressed_bytes"];
  int64_t& stored_ = result_->metrics["stored_bytes"];
  int64_t& stored_raw_ = result_->metrics["blocks_stored_raw"];
  int64_t& index_blocks_ = result_->metrics["index_blocks"];
  int64_t& blobs_ = result_->metrics["blobs"];
  int64_t& blob_uncompressed_ = result_->metrics["blob_uncompressed_bytes"];
  int64_t& blob_compressed_ = result_->metrics["blob_compressed_bytes"];
};

}  // namespace

absl::Status RunBlocksReplay(const Job& job, RunResult* result, ProgressSink* progress) {
  // On the heap: five pools, the codecs and buffers are more than a child's
  // main thread needs on its stack (slots: compression/pool/thread_front.h).
  return std::make_unique<Replayer>(job, result, progress)->Run();
}

}  // namespace rockpool::replay
