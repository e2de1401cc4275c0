#include "tools/sst_replay/lz4_replay.h"

#include "compression/compression_type.h"
#include "tools/sst_replay/child_support.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {

absl::Status Lz4FileReplay::StartSst(const CodecSettings& codec, bool has_dictionary,
                                     bool index_compressed) {
  Finish();
  per_block_ = pattern_.lz4 == Lz4Model::kStreamPerBlock;
  if (per_block_) return absl::OkStatus();
  // The table builder's working areas: the data area, and the index area
  // when index blocks are compressed. LZ4 without a dictionary has none
  // (BuiltinLZ4CompressorV2NoDict::ObtainWorkingArea returns an empty one).
  if (codec.type == compression_type::kLZ4HC) {
    ROCKPOOL_RETURN_IF_ERROR(LeaseInto(pools_->lz4hc(), Lz4Key{}, "lz4hc stream", &data_hc_));
    if (!index_compressed) return absl::OkStatus();
    return LeaseInto(pools_->lz4hc(), Lz4Key{}, "lz4hc stream", &index_hc_);
  }
  if (!has_dictionary) return absl::OkStatus();
  return LeaseInto(pools_->lz4(), Lz4Key{}, "lz4 stream", &data_lz4_);
}

absl::Status Lz4FileReplay::StartBlobFile(const CodecSettings& codec) {
  Finish();
  // 11.x: one working area per BlobFileBuilder (BlobFileBuilder's
  // blob_compressor_wa_); before, OLD_CompressData's per-blob streams.
  per_block_ = pattern_.lz4 == Lz4Model::kStreamPerBlock || pattern_.zstd_context_per_blob;
  if (per_block_ || codec.type != compression_type::kLZ4HC) return absl::OkStatus();
  return LeaseInto(pools_->lz4hc(), Lz4Key{}, "lz4hc stream", &data_hc_);
}

void Lz4FileReplay::HoldForData(BlockCompression* how) const {
  if (per_block_) return;  // LZ4_Compress / LZ4HC_Compress: a new stream per block
  how->lz4hc_stream = data_hc_ ? data_hc_->get() : nullptr;
  how->lz4_stream = data_lz4_ ? data_lz4_->get() : nullptr;
  how->lz4_without_stream = how->lz4_stream == nullptr;
}

void Lz4FileReplay::HoldForIndex(BlockCompression* how) const {
  if (per_block_) return;
  how->lz4hc_stream = index_hc_ ? index_hc_->get() : nullptr;
  how->lz4_without_stream = true;  // LZ4's index blocks: no dictionary, no stream
}

void Lz4FileReplay::Finish() {
  data_lz4_.reset();
  data_hc_.reset();
  index_hc_.reset();
}

}  // namespace rockpool::replay
