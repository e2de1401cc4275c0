#include "compression/zstd_block_codec.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compression/block_format.h"
#include "compression/zstd_level.h"

namespace rockpool {
namespace {

// A compress call's result as the header describes it.
absl::StatusOr<size_t> CompressResult(size_t n, size_t input_size) {
  if (!ZSTD_isError(n)) return n;
  const std::string what =
      absl::StrCat("zstd: compressing ", input_size, " bytes: ", ZSTD_getErrorName(n));
  switch (ZSTD_getErrorCode(n)) {
    case ZSTD_error_dstSize_tooSmall:
      return absl::FailedPreconditionError(what);
    case ZSTD_error_memory_allocation:
      return absl::ResourceExhaustedError(what);
    default:
      return absl::InternalError(what);
  }
}

absl::Status ParameterError(const char* what, size_t rc) {
  return absl::InternalError(absl::StrCat("zstd: ", what, ": ", ZSTD_getErrorName(rc)));
}

}  // namespace

absl::StatusOr<size_t> ZstdBlockCodec::CompressUsingDictInto(ZSTD_CCtx* cctx,
                                                             std::string_view input, int zstd_level,
                                                             const ZSTD_CDict* cdict, char* dst,
                                                             size_t capacity) {
  const size_t n = cdict != nullptr ? ZSTD_compress_usingCDict(cctx, dst, capacity, input.data(),
                                                               input.size(), cdict)
                                    : ZSTD_compress_usingDict(cctx, dst, capacity, input.data(),
                                                              input.size(), nullptr, 0, zstd_level);
  return CompressResult(n, input.size());
}

absl::Status ZstdBlockCodec::PrepareForCompress2(ZSTD_CCtx* cctx, int zstd_level, bool checksum) {
  if (size_t rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
      ZSTD_isError(rc)) {
    return ParameterError("setting the level", rc);
  }
  if (checksum) {
    if (size_t rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1); ZSTD_isError(rc)) {
      return ParameterError("setting the checksum flag", rc);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> ZstdBlockCodec::Compress2Into(ZSTD_CCtx* cctx, std::string_view input,
                                                     const ZSTD_CDict* cdict,
                                                     std::string_view raw_dictionary, char* dst,
                                                     size_t capacity) {
  const size_t rc = cdict != nullptr ? ZSTD_CCtx_refCDict(cctx, cdict)
                                     : ZSTD_CCtx_loadDictionary(cctx, raw_dictionary.data(),
                                                                raw_dictionary.size());
  if (ZSTD_isError(rc)) return ParameterError("setting the dictionary", rc);
  return CompressResult(ZSTD_compress2(cctx, dst, capacity, input.data(), input.size()),
                        input.size());
}

absl::Status ZstdBlockCodec::DecompressInto(ZSTD_DCtx* dctx, std::string_view payload,
                                            const ZSTD_DDict* ddict, char* out, size_t size) {
  // A one-byte scratch keeps dst non-null for empty blocks.
  char scratch;
  void* dst = size == 0 ? static_cast<void*>(&scratch) : static_cast<void*>(out);
  const size_t n =
      ddict != nullptr
          ? ZSTD_decompress_usingDDict(dctx, dst, size, payload.data(), payload.size(), ddict)
          : ZSTD_decompressDCtx(dctx, dst, size, payload.data(), payload.size());
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation) {  // not corruption
      return absl::ResourceExhaustedError(absl::StrCat("zstd block: ", ZSTD_getErrorName(n)));
    }
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
      return absl::DataLossError(
          absl::StrCat("zstd block: decompresses to more than the declared ", size, " bytes"));
    }
    return absl::DataLossError(absl::StrCat("zstd block: ", ZSTD_getErrorName(n), " (",
                                            payload.size(), " payload bytes)"));
  }
  if (n != size) {
    return absl::DataLossError(
        absl::StrCat("zstd block: decompressed ", n, " bytes, size prefix declares ", size));
  }
  return absl::OkStatus();
}

absl::Status ZstdBlockCodec::CompressWith(ZSTD_CCtx* cctx, std::string_view input, int level,
                                          const ZstdDictionary* dict, std::string* out) {
  const int zstd_level = ZstdLevelFromRocksDb(level, RocksDbZstdLevels::kV7);
  const ZSTD_CDict* cdict = dict != nullptr ? dict->cdict() : nullptr;
  return CompressBlockToString(
      "zstd", input.size(), ZSTD_compressBound(input.size()), out, [&](char* dst, size_t capacity) {
        return CompressUsingDictInto(cctx, input, zstd_level, cdict, dst, capacity);
      });
}

absl::Status ZstdBlockCodec::DecompressWith(ZSTD_DCtx* dctx, std::string_view block,
                                            const ZstdDictionary* dict,
                                            size_t max_uncompressed_size, std::string* out) {
  const ZSTD_DDict* ddict = dict != nullptr ? dict->ddict() : nullptr;
  return DecompressBlockToString("zstd block", block, max_uncompressed_size, out,
                                 [&](std::string_view payload, char* dst, size_t size) {
                                   return DecompressInto(dctx, payload, ddict, dst, size);
                                 });
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
