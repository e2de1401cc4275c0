#include "compression/zstd_block_codec.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"
#include "compression/coding.h"
#include "compression/zstd_level.h"

namespace rockpool {

absl::Status ZstdBlockCodec::CompressWith(ZSTD_CCtx* cctx, std::string_view input, int level,
                                          const ZstdDictionary* dict, std::string* out) {
  if (input.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("zstd: block over 4 GiB");
  }
  out->clear();
  PutVarint32(out, static_cast<uint32_t>(input.size()));
  const size_t header = out->size();
  const size_t bound = ZSTD_compressBound(input.size());
  out->resize(header + bound);
  char* dst = out->data() + header;
  const size_t n =
      dict != nullptr
          ? ZSTD_compress_usingCDict(cctx, dst, bound, input.data(), input.size(), dict->cdict())
          : ZSTD_compress_usingDict(cctx, dst, bound, input.data(), input.size(), nullptr, 0,
                                    ZstdLevelFromRocksDb(level, RocksDbZstdLevels::kV7));
  if (ZSTD_isError(n)) {
    out->clear();
    if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation) {
      return absl::ResourceExhaustedError(
          absl::StrCat("zstd: compressing ", input.size(), " bytes: ", ZSTD_getErrorName(n)));
    }
    return absl::InternalError(
        absl::StrCat("zstd: compressing ", input.size(), " bytes: ", ZSTD_getErrorName(n)));
  }
  out->resize(header + n);
  return absl::OkStatus();
}

absl::Status ZstdBlockCodec::DecompressWith(ZSTD_DCtx* dctx, std::string_view block,
                                            const ZstdDictionary* dict,
                                            size_t max_uncompressed_size, std::string* out) {
  absl::StatusOr<BlockPrefix> prefix = ParseBlockPrefix(block, max_uncompressed_size);
  if (!prefix.ok())
    return absl::Status(prefix.status().code(),
                        absl::StrCat("zstd block: ", prefix.status().message()));
  out->resize(prefix->uncompressed_size);
  // A one-byte scratch keeps dst non-null for empty blocks.
  char scratch;
  void* dst = out->empty() ? static_cast<void*>(&scratch) : static_cast<void*>(out->data());
  const size_t n = dict != nullptr
                       ? ZSTD_decompress_usingDDict(dctx, dst, out->size(), prefix->payload.data(),
                                                    prefix->payload.size(), dict->ddict())
                       : ZSTD_decompressDCtx(dctx, dst, out->size(), prefix->payload.data(),
                                             prefix->payload.size());
  if (ZSTD_isError(n)) {
    const size_t declared = out->size();
    out->clear();
    if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation) {  // not corruption
      return absl::ResourceExhaustedError(absl::StrCat("zstd block: ", ZSTD_getErrorName(n)));
    }
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
      return absl::DataLossError(
          absl::StrCat("zstd block: decompresses to more than the declared ", declared, " bytes"));
    }
    return absl::DataLossError(absl::StrCat("zstd block: ", ZSTD_getErrorName(n), " (",
                                            prefix->payload.size(), " payload bytes)"));
  }
  if (n != out->size()) {
    const size_t declared = out->size();
    out->clear();
    return absl::DataLossError(
        absl::StrCat("zstd block: decompressed ", n, " bytes, size prefix declares ", declared));
  }
  return absl::OkStatus();
}

absl::Status ZstdBlockCodec::Compress(std::string_view input, int level, const ZstdDictionary* dict,
                                      std::string* out) const {
  absl::StatusOr<ZstdCompressPool::Lease> lease = compress_pool_->Acquire(ZstdKey{});
  if (!lease.ok()) return lease.status();
  return CompressWith((*lease)->get(), input, level, dict, out);
}

absl::Status ZstdBlockCodec::Decompress(std::string_view block, const ZstdDictionary* dict,
                                        std::string* out) const {
  absl::StatusOr<ZstdDecompressPool::Lease> lease = decompress_pool_->Acquire(ZstdKey{});
  if (!lease.ok()) return lease.status();
  return DecompressWith((*lease)->get(), block, dict, max_uncompressed_size_, out);
}

}  // namespace rockpool
