#include "tools/sst/sst_file.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "compression/compression_type.h"
#include "tools/sst/checksum.h"
#include "tools/sst/errors.h"

namespace rockpool::sst {

absl::StatusOr<std::unique_ptr<SstFile>> SstFile::Open(const std::string& path,
                                                       SstReadOptions options) {
  absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  std::unique_ptr<SstFile> file(new SstFile(std::move(*source), std::move(options), path));
  absl::Status s = file->Init();
  if (!s.ok()) return s;
  return file;
}

absl::StatusOr<std::unique_ptr<SstFile>> SstFile::OpenFromBuffer(std::string contents,
                                                                 SstReadOptions options,
                                                                 std::string name) {
  std::unique_ptr<SstFile> file(
      new SstFile(MakeBufferSource(std::move(contents)), std::move(options), std::move(name)));
  absl::Status s = file->Init();
  if (!s.ok()) return s;
  return file;
}

SstFile::SstFile(std::unique_ptr<ByteSource> source, SstReadOptions options, std::string name)
    : source_(std::move(source)), options_(std::move(options)), name_(std::move(name)) {}

SstFile::~SstFile() = default;

uint64_t SstFile::file_size() const { return source_->size(); }

absl::Status SstFile::Init() {
  const uint64_t size = source_->size();
  const size_t tail_size = static_cast<size_t>(std::min<uint64_t>(size, kMaxFooterSize));
  std::string tail;
  absl::Status s = source_->ReadAt(size - tail_size, tail_size, &tail);
  if (!s.ok()) return WithContext(s, name_, size - tail_size);
  absl::StatusOr<Footer> footer =
      DecodeFooter(tail, size, name_, {.verify_checksum = options_.verify_checksums});
  if (!footer.ok()) return footer.status();
  footer_ = *footer;

  absl::StatusOr<std::string> meta = ReadBlockContents(footer_.metaindex_handle, BlockKind::kMeta);
  if (!meta.ok()) return meta.status();
  absl::StatusOr<Metaindex> metaindex = ParseMetaindex(*meta);
  if (!metaindex.ok()) {
    return WithContext(metaindex.status(), name_, footer_.metaindex_handle.offset);
  }
  metaindex_ = std::move(*metaindex);

  auto props = metaindex_.find(meta_block_names::kProperties);
  if (props == metaindex_.end()) props = metaindex_.find(meta_block_names::kPropertiesOld);
  if (props != metaindex_.end()) {
    s = ReadProperties(props->second);
    if (!s.ok()) return s;
  }
  auto dict = metaindex_.find(meta_block_names::kCompressionDict);
  if (dict != metaindex_.end()) {
    absl::StatusOr<std::string> bytes = ReadBlockContents(dict->second, BlockKind::kMeta);
    if (!bytes.ok()) return bytes.status();
    dictionary_ = std::move(*bytes);
  }
  return ResolveIndex();
}

absl::Status SstFile::ReadProperties(const BlockHandle& handle) {
  absl::StatusOr<RawBlock> raw = ReadRawBlock(handle, /*verify_checksum=*/false);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<std::string> contents = Decompress(*raw, BlockKind::kMeta);
  if (!contents.ok()) return contents.status();
  absl::StatusOr<TableProperties> props = TableProperties::Parse(*contents);
  if (!props.ok()) return WithContext(props.status(), name_, handle.offset);
  if (options_.verify_checksums) {
    absl::Status s = VerifyChecksum(*raw);
    // Ingestion with write_global_seqno rewrites the global seqno in place
    // without updating the checksum: retry with the value zeroed, as
    // RocksDB's ReadTablePropertiesHelper does.
    std::optional<size_t> at = props->global_seqno_value_offset();
    if (!s.ok() && at.has_value() && raw->compression_type == 0 && *at + 8 <= handle.size) {
      RawBlock copy = *raw;
      for (size_t i = 0; i < 8; ++i) copy.bytes[*at + i] = 0;
      if (VerifyChecksum(copy).ok()) s = absl::OkStatus();
    }
    if (!s.ok()) return s;
  }
  properties_ = std::move(*props);
  return absl::OkStatus();
}

absl::Status SstFile::ResolveIndex() {
  if (footer_.format_version >= 6) {
    auto it = metaindex_.find(meta_block_names::kIndex);
    if (it == metaindex_.end()) {
      return CorruptionError(name_, footer_.metaindex_handle.offset,
                             "metaindex has no rocksdb.index entry");
    }
    index_handle_ = it->second;
  } else {
    index_handle_ = footer_.index_handle;
  }
  absl::StatusOr<uint32_t> type = properties_.index_type();
  if (!type.ok()) {
    auto props = metaindex_.find(meta_block_names::kProperties);
    return WithContext(type.status(), name_, props == metaindex_.end() ? 0 : props->second.offset);
  }
  if (*type > static_cast<uint32_t>(IndexType::kBinarySearchWithFirstKey)) {
    return UnsupportedError(name_, index_handle_.offset, absl::StrCat("index type ", *type));
  }
  index_type_ = static_cast<IndexType>(*type);
  index_format_.value_delta_encoded = properties_.index_value_is_delta_encoded();
  index_format_.has_first_key = index_type_ == IndexType::kBinarySearchWithFirstKey;
  return absl::OkStatus();
}

absl::StatusOr<RawBlock> SstFile::ReadRawBlock(const BlockHandle& handle,
                                               bool verify_checksum) const {
  if (handle.size > options_.max_block_size) {
    return absl::ResourceExhaustedError(
        absl::StrCat(name_, ": offset ", handle.offset, ": block of ", handle.size,
                     " bytes exceeds max_block_size ", options_.max_block_size));
  }
  uint64_t end = 0;
  if (!BlockEndWithTrailer(handle, &end) || end > footer_.footer_offset) {
    return CorruptionError(name_, handle.offset,
                           absl::StrCat("block handle ", handle.ToString(),
                                        " extends past the footer at ", footer_.footer_offset));
  }
  RawBlock raw;
  raw.handle = handle;
  absl::Status s = source_->ReadAt(
      handle.offset, static_cast<size_t>(handle.size) + kBlockTrailerSize, &raw.bytes);
  if (!s.ok()) return WithContext(s, name_, handle.offset);
  const size_t n = static_cast<size_t>(handle.size);
  raw.compression_type = static_cast<uint8_t>(raw.bytes[n]);
  raw.stored_checksum = DecodeFixed32(raw.bytes.data() + n + 1);
  if (verify_checksum) {
    s = VerifyChecksum(raw);
    if (!s.ok()) return s;
  }
  return raw;
}

absl::Status SstFile::VerifyChecksum(const RawBlock& block) const {
  if (footer_.checksum_type == ChecksumType::kNoChecksum) return absl::OkStatus();
  const size_t covered = static_cast<size_t>(block.handle.size) + 1;
  if (block.bytes.size() < covered + 4) {
    return CorruptionError(name_, block.handle.offset, "block shorter than its handle");
  }
  const uint32_t computed =
      ComputeBuiltinChecksum(footer_.checksum_type, block.bytes.data(), covered);
  const uint32_t stored =
      block.stored_checksum -
      ChecksumModifierForContext(footer_.base_context_checksum, block.handle.offset);
  if (stored == computed) return absl::OkStatus();
  return CorruptionError(name_, block.handle.offset,
                         absl::StrFormat("block checksum mismatch (size %d, %s): stored 0x%08x, "
                                         "computed 0x%08x",
                                         block.handle.size, ChecksumTypeName(footer_.checksum_type),
                                         stored, computed));
}

absl::StatusOr<std::string> SstFile::Decompress(const RawBlock& block, BlockKind kind) const {
  const uint8_t type = block.compression_type;
  const std::string_view payload = block.payload();
  if (type == compression_type::kNone) return std::string(payload);
  const uint64_t at = block.handle.offset;
  const std::string type_name = absl::StrFormat("%s (type %d)", CompressionTypeName(type), type);
  if (footer_.format_version < 2) {
    return UnsupportedError(name_, at,
                            absl::StrCat("block compressed with ", type_name,
                                         " in a format_version ", footer_.format_version, " file"));
  }
  if (!options_.decompressor) {
    return UnsupportedError(
        name_, at,
        absl::StrCat("block compressed with ", type_name, " but no decompressor is configured"));
  }
  if (HasUncompressedSizePrefix(type)) {
    std::string_view p = payload;
    uint32_t declared = 0;
    if (!GetVarint32(&p, &declared)) {
      return CorruptionError(name_, at,
                             absl::StrCat(type_name, " block has a malformed uncompressed size"));
    }
    if (declared > options_.max_block_size) {
      return absl::ResourceExhaustedError(
          absl::StrCat(name_, ": offset ", at, ": ", type_name, " block declares ", declared,
                       " uncompressed bytes, over max_block_size ", options_.max_block_size));
    }
  }
  std::string out;
  const std::string_view dict =
      kind == BlockKind::kData ? std::string_view(dictionary_) : std::string_view();
  absl::Status s = options_.decompressor(type, payload, dict, &out);
  if (!s.ok()) {
    return WithContext(s, name_, at);
  }
  if (out.size() > options_.max_block_size) {
    return absl::ResourceExhaustedError(absl::StrCat(name_, ": offset ", at,
                                                     ": decompressed block of ", out.size(),
                                                     " bytes exceeds max_block_size"));
  }
  return out;
}

absl::StatusOr<std::string> SstFile::ReadBlockContents(const BlockHandle& handle,
                                                       BlockKind kind) const {
  absl::StatusOr<RawBlock> raw = ReadRawBlock(handle, options_.verify_checksums);
  if (!raw.ok()) return raw.status();
  return Decompress(*raw, kind);
}

}  // namespace rockpool::sst
