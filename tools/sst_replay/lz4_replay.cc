#include "tools/sst_replay/lz4_replay.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"
#include "compression/compression_type.h"

namespace rockpool::replay {
namespace {

// RocksDB's block format around one LZ4 payload: the string form of the
// codec's *Into calls, sized with LZ4_compressBound as RocksDB sizes it.
template <typename CompressFn>
absl::Status WriteBlock(std::string_view input, std::string* out, CompressFn compress) {
  out->clear();
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return absl::InvalidArgumentError("lz4: block over 2 GiB");
  }
  const size_t bound = static_cast<size_t>(LZ4_compressBound(static_cast<int>(input.size())));
  out->resize(kMaxBlockPrefixSize + bound);
  std::optional<BlockPayloadArea> area = StartBlock(input.size(), out->data(), out->size());
  if (!area) return absl::InvalidArgumentError("lz4: block over 4 GiB");
  absl::StatusOr<size_t> n = compress(area->data, area->capacity);
  if (!n.ok()) {
    out->clear();
    return n.status();
  }
  out->resize(area->prefix_size + *n);
  return absl::OkStatus();
}

// RocksDB 10.7+'s BuiltinLZ4CompressorV2NoDict::CompressBlock: no stream,
// LZ4_compress_fast with acceleration 1 (its state on the stack). Not the
// bytes a new stream's LZ4_compress_fast_continue writes: LZ4_compress_fast
// hashes blocks under 64 KiB into 16-bit tables.
absl::Status CompressStateless(std::string_view input, std::string* out) {
  return WriteBlock(input, out, [&](char* dst, size_t capacity) -> absl::StatusOr<size_t> {
    const int n = LZ4_compress_fast(
        input.data(), dst, static_cast<int>(input.size()),
        static_cast<int>(std::min<size_t>(capacity, std::numeric_limits<int>::max())),
        /*acceleration=*/1);
    if (n <= 0) return absl::FailedPreconditionError("lz4: block output over the bound");
    return static_cast<size_t>(n);
  });
}

absl::Status LeaseError(const absl::Status& s, const char* what) {
  return absl::InternalError(absl::StrCat(what, ": ", s.message()));
}

}  // namespace

absl::Status Lz4FileReplay::StartSst(const CodecSettings& codec, std::string_view dictionary,
                                     bool index_compressed) {
  Finish();
  hc_ = codec.type == compression_type::kLZ4HC;
  level_ = codec.level;
  dictionary_ = dictionary;
  per_block_ = pattern_.lz4 == Lz4Model::kStreamPerBlock;
  if (per_block_) return absl::OkStatus();
  // The table builder's working areas: the data area, and the index area
  // when index blocks are compressed. LZ4 without a dictionary has none
  // (BuiltinLZ4CompressorV2NoDict::ObtainWorkingArea returns an empty one).
  if (hc_) {
    absl::StatusOr<Lz4HcPool::Lease> data = pools_->lz4hc().Acquire(Lz4Key{});
    if (!data.ok()) return LeaseError(data.status(), "lz4hc stream");
    data_hc_ = *std::move(data);
    if (index_compressed) {
      absl::StatusOr<Lz4HcPool::Lease> index = pools_->lz4hc().Acquire(Lz4Key{});
      if (!index.ok()) return LeaseError(index.status(), "lz4hc stream");
      index_hc_ = *std::move(index);
    }
  } else if (!dictionary_.empty()) {
    absl::StatusOr<Lz4Pool::Lease> data = pools_->lz4().Acquire(Lz4Key{});
    if (!data.ok()) return LeaseError(data.status(), "lz4 stream");
    data_lz4_ = *std::move(data);
  }
  return absl::OkStatus();
}

absl::Status Lz4FileReplay::StartBlobFile(const CodecSettings& codec) {
  Finish();
  hc_ = codec.type == compression_type::kLZ4HC;
  level_ = codec.level;
  dictionary_ = {};
  // 11.x: one working area per BlobFileBuilder (BlobFileBuilder's
  // blob_compressor_wa_); before, OLD_CompressData's per-blob streams.
  per_block_ = pattern_.lz4 == Lz4Model::kStreamPerBlock || pattern_.zstd_context_per_blob;
  if (per_block_ || !hc_) return absl::OkStatus();
  absl::StatusOr<Lz4HcPool::Lease> area = pools_->lz4hc().Acquire(Lz4Key{});
  if (!area.ok()) return LeaseError(area.status(), "lz4hc stream");
  data_hc_ = *std::move(area);
  return absl::OkStatus();
}

absl::Status Lz4FileReplay::CompressData(std::string_view block, std::string* out) {
  return Compress(Area::kData, block, dictionary_, out);
}

absl::Status Lz4FileReplay::CompressIndex(std::string_view block, std::string* out) {
  // RocksDB uses the dictionary for data blocks only.
  return Compress(Area::kIndex, block, {}, out);
}

absl::Status Lz4FileReplay::CompressBlob(std::string_view value, std::string* out) {
  return Compress(Area::kData, value, {}, out);
}

void Lz4FileReplay::Finish() {
  data_lz4_.reset();
  data_hc_.reset();
  index_hc_.reset();
}

absl::Status Lz4FileReplay::Compress(Area area, std::string_view input, std::string_view dictionary,
                                     std::string* out) {
  if (per_block_) {
    // LZ4_Compress / LZ4HC_Compress (util/compression.h): a new stream for
    // this block, leased and returned by the codec's string form.
    return codec_.Compress(input, Lz4BlockOptions{hc_, level_, dictionary}, out);
  }
  if (hc_) {
    const Lz4HcPool::Lease& lease = area == Area::kIndex ? index_hc_ : data_hc_;
    if (!lease) return absl::InternalError("lz4hc: no working area for this block");
    return WriteBlock(input, out, [&](char* dst, size_t capacity) {
      return Lz4BlockCodec::CompressHcInto(lease->get(), Lz4BlockCodec::HcLevel(level_), input,
                                           dictionary, dst, capacity);
    });
  }
  if (area == Area::kData && data_lz4_) {
    return WriteBlock(input, out, [&](char* dst, size_t capacity) {
      return Lz4BlockCodec::CompressInto(data_lz4_->get(), input, dictionary, dst, capacity);
    });
  }
  return CompressStateless(input, out);
}

sst::BlockDecompressor WithLz4ReadStreams(sst::BlockDecompressor inner) {
  return [inner = std::move(inner)](uint8_t type, std::string_view payload,
                                    std::string_view dictionary, std::string* out) {
    const Lz4ReadStream stream(type);
    return inner(type, payload, dictionary, out);
  };
}

}  // namespace rockpool::replay
