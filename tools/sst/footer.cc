#include "tools/sst/footer.h"

#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tools/sst/errors.h"

namespace rockpool::sst {
namespace {

constexpr size_t kMagicSize = 8;
constexpr size_t kPart2Size = 2 * kMaxBlockHandleEncodedLength;  // 40
constexpr std::array<char, 4> kExtendedMagic{{0x3e, 0x00, 0x7a, 0x00}};

absl::Status DecodeHandles(std::string_view part2, Footer* footer, std::string_view file_name) {
  if (!DecodeBlockHandle(&part2, &footer->metaindex_handle) ||
      !DecodeBlockHandle(&part2, &footer->index_handle)) {
    return CorruptionError(file_name, footer->footer_offset, "footer has malformed block handles");
  }
  return absl::OkStatus();
}

// Parses part 2 of a format_version >= 6 footer. `footer_bytes` is the whole
// 53-byte footer.
absl::Status DecodeExtendedPart2(std::string_view footer_bytes, Footer* footer,
                                 std::string_view file_name, const FooterDecodeOptions& options) {
  const uint64_t at = footer->footer_offset;
  std::string_view p = footer_bytes.substr(1, kPart2Size);
  if (p.substr(0, 4) != std::string_view(kExtendedMagic.data(), 4)) {
    return CorruptionError(file_name, at, "bad extended magic in footer");
  }
  const uint32_t stored = DecodeFixed32(p.data() + 4);
  footer->base_context_checksum = DecodeFixed32(p.data() + 8);
  const uint32_t metaindex_size = DecodeFixed32(p.data() + 12);
  const uint64_t reserved = DecodeFixed64(p.data() + 32);
  if (footer->base_context_checksum == 0) {
    return CorruptionError(file_name, at, "invalid base context checksum 0");
  }
  if (options.verify_checksum) {
    std::string copy(footer_bytes);
    for (size_t i = 5; i < 9; ++i) copy[i] = 0;
    uint32_t computed = 0;
    if (footer->checksum_type != ChecksumType::kNoChecksum) {
      computed = ComputeBuiltinChecksum(footer->checksum_type, copy.data(), copy.size());
    }
    computed += ChecksumModifierForContext(footer->base_context_checksum, at);
    if (computed != stored) {
      return CorruptionError(
          file_name, at,
          absl::StrFormat("footer checksum mismatch: stored 0x%08x, "
                          "computed 0x%08x (%s)",
                          stored, computed, ChecksumTypeName(footer->checksum_type)));
    }
  }
  if (reserved != 0) {
    return UnsupportedError(file_name, at + 33,
                            "footer uses a future feature (reserved bytes set)");
  }
  if (uint64_t{metaindex_size} + kBlockTrailerSize > at) {
    return CorruptionError(file_name, at,
                           absl::StrCat("metaindex size ", metaindex_size, " exceeds the file"));
  }
  footer->metaindex_handle.offset = at - kBlockTrailerSize - metaindex_size;
  footer->metaindex_handle.size = metaindex_size;
  footer->index_handle = BlockHandle{};
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Footer> DecodeFooter(std::string_view tail, uint64_t file_size,
                                    std::string_view file_name, FooterDecodeOptions options) {
  if (file_size < kLegacyFooterSize || tail.size() < kLegacyFooterSize || tail.size() > file_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: offset 0: file is too short (%d bytes) to be an SST file", file_name, file_size));
  }
  const uint64_t magic_offset = file_size - kMagicSize;
  const uint64_t magic = DecodeFixed64(tail.data() + tail.size() - kMagicSize);
  Footer footer;
  if (magic == kLegacyBlockBasedTableMagicNumber) {
    footer.legacy_magic = true;
    footer.format_version = 0;
    footer.checksum_type = ChecksumType::kCRC32c;
    footer.encoded_size = kLegacyFooterSize;
    footer.footer_offset = file_size - kLegacyFooterSize;
    std::string_view bytes = tail.substr(tail.size() - kLegacyFooterSize);
    absl::Status s = DecodeHandles(bytes.substr(0, kPart2Size), &footer, file_name);
    if (!s.ok()) return s;
    return footer;
  }
  if (magic != kBlockBasedTableMagicNumber) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: offset %d: not a block-based SST file (magic 0x%016x, expected "
                        "0x%016x)",
                        file_name, magic_offset, magic, kBlockBasedTableMagicNumber));
  }
  if (file_size < kFooterSize || tail.size() < kFooterSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: offset 0: file is too short (%d bytes) for a format_version >= 1 "
                        "footer",
                        file_name, file_size));
  }
  std::string_view bytes = tail.substr(tail.size() - kFooterSize);
  footer.encoded_size = kFooterSize;
  footer.footer_offset = file_size - kFooterSize;
  footer.format_version = DecodeFixed32(bytes.data() + 1 + kPart2Size);
  if (footer.format_version > kMaxFormatVersion) {
    return UnsupportedError(file_name, magic_offset - 4,
                            absl::StrCat("format_version ", footer.format_version,
                                         " (this reader knows 0..", kMaxFormatVersion, ")"));
  }
  const uint8_t raw_checksum = static_cast<uint8_t>(bytes[0]);
  if (!IsKnownChecksumType(raw_checksum)) {
    return UnsupportedError(file_name, footer.footer_offset,
                            absl::StrCat("checksum type ", raw_checksum));
  }
  footer.checksum_type = static_cast<ChecksumType>(raw_checksum);
  absl::Status s = footer.format_version >= 6
                       ? DecodeExtendedPart2(bytes, &footer, file_name, options)
                       : DecodeHandles(bytes.substr(1, kPart2Size), &footer, file_name);
  if (!s.ok()) return s;
  return footer;
}

}  // namespace rockpool::sst
