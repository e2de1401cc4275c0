#include "tools/sst_replay/inputs.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compression/compression_type.h"
#include "tools/sst/checksum.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;

absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status PathError(const std::string& path, int err, std::string_view what) {
  return absl::ErrnoToStatus(err, absl::StrCat(path, ": offset 0: ", A(what)));
}

// The "key=value" items of a compression_options property, trimmed.
std::vector<std::pair<absl::string_view, absl::string_view>> CompressionOptionItems(
    std::string_view text) {
  std::vector<std::pair<absl::string_view, absl::string_view>> items;
  for (absl::string_view item : absl::StrSplit(A(text), ';', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    items.emplace_back(absl::StripAsciiWhitespace(kv.first), absl::StripAsciiWhitespace(kv.second));
  }
  return items;
}

}  // namespace

bool RockpoolDecodes(uint8_t type) {
  namespace ct = rockpool::compression_type;
  return type == ct::kNone || type == ct::kZlib || type == ct::kZSTD || type == ct::kLZ4 ||
         type == ct::kLZ4HC;
}

std::string CodecName(uint8_t type) { return std::string(rockpool::CompressionTypeName(type)); }

uint8_t CompressionTypeFromName(std::string_view name) {
  namespace ct = rockpool::compression_type;
  constexpr std::pair<std::string_view, uint8_t> kNames[] = {
      {"NoCompression", ct::kNone}, {"Snappy", ct::kSnappy}, {"Zlib", ct::kZlib},
      {"BZip2", ct::kBZip2},        {"LZ4", ct::kLZ4},       {"LZ4HC", ct::kLZ4HC},
      {"Xpress", ct::kXpress},      {"ZSTD", ct::kZSTD},     {"ZSTDNotFinal", ct::kZSTD},
  };
  for (const auto& [known, type] : kNames) {
    if (name == known) return type;
  }
  return 0xff;
}

CodecSettings ParseCompressionOptions(std::string_view text, uint8_t type) {
  CodecSettings c;
  c.type = type;
  for (const auto& [key, value] : CompressionOptionItems(text)) {
    int v = 0;
    if (!absl::SimpleAtoi(value, &v)) continue;
    if (key == "level") c.level = v;
    if (key == "window_bits") c.window_bits = v;
    if (key == "strategy") c.strategy = v;
    if (key == "max_dict_bytes" && v >= 0) c.max_dict_bytes = static_cast<uint32_t>(v);
  }
  return c;
}

std::string RecordedCompressionManager(std::string_view compression_options) {
  for (const auto& [key, value] : CompressionOptionItems(compression_options)) {
    if (key == "_compression_manager") return std::string(value);
  }
  return "";
}

absl::StatusOr<std::vector<std::string>> ResolveInputs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    std::error_code ec;
    const fs::file_status st = fs::status(arg, ec);
    if (ec) return PathError(arg, ec.value(), "cannot open");
    std::vector<std::string> found;
    if (fs::is_regular_file(st)) {
      found.push_back(arg);
    } else if (!fs::is_directory(st)) {
      return absl::InvalidArgumentError(
          absl::StrCat(arg, ": offset 0: not a regular file or directory"));
    } else {
      for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
        // SSTs and integrated BlobDB's blob files (blob_inputs.h).
        const fs::path ext = it->path().extension();
        std::error_code ec2;
        if ((ext == ".sst" || ext == ".blob") && it->is_regular_file(ec2)) {
          found.push_back(it->path().string());
        }
      }
      if (ec) return PathError(arg, ec.value(), "cannot list directory");
      if (found.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg, ": offset 0: directory holds no SST or blob files (*.sst, *.blob)"));
      }
      std::sort(found.begin(), found.end());
    }
    for (const std::string& path : found) {
      if (path.find('\n') != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("file name with a newline is not supported: ", path));
      }
      const fs::path canonical = fs::weakly_canonical(path, ec);
      if (seen.insert(ec ? path : canonical.string()).second) out.push_back(path);
    }
  }
  return out;
}

absl::StatusOr<InputFile> ScanFile(const std::string& path, const sst::SstReadOptions& options) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<sst::SstFile> file,
                            sst::SstFile::Open(path, options));
  const sst::SstFile& f = *file;
  InputFile in;
  in.path = path;
  in.file_number = FileNumber(path);
  const sst::TableProperties& props = f.properties();
  uint8_t type = CompressionTypeFromName(props.compression_name());
  in.format_version = f.footer().format_version;
  in.checksum = static_cast<uint8_t>(f.footer().checksum_type);
  in.has_dictionary = !f.compression_dictionary().empty();
  in.ingestible = props.Get("rocksdb.external_sst_file.version").has_value();
  in.column_family = std::string(props.Get(sst::property_names::kColumnFamilyName).value_or(""));
  const std::string_view options_text =
      props.Get(sst::property_names::kCompressionOptions).value_or("");
  in.compression_manager = RecordedCompressionManager(options_text);
  absl::StatusOr<std::vector<sst::BlockHandle>> handles = f.DataBlockHandles();
  if (handles.ok()) {
    in.data_blocks = handles->size();
    for (const sst::BlockHandle& h : *handles) in.stored_data_bytes += h.size;
  } else if (!absl::IsUnimplemented(handles.status()) || type == 0xff || RockpoolDecodes(type)) {
    return handles.status();
  }
  // Else a codec rockpool does not decode (snappy, bzip2, ...) compresses
  // the index too: the file is reported and skipped, not an error.
  if (type == 0xff && handles.ok() && !handles->empty()) {
    // No (known) property: trust the first data block's trailer.
    ROCKPOOL_ASSIGN_OR_RETURN(const sst::RawBlock raw,
                              f.ReadRawBlock(handles->front(), options.verify_checksums));
    type = raw.compression_type;
  }
  in.codec = ParseCompressionOptions(options_text, type);
  return in;
}

absl::Status VerifyDataBlocks(const std::string& path, const sst::SstReadOptions& options) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<sst::SstFile> file,
                            sst::SstFile::Open(path, options));
  ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<sst::BlockHandle> handles, file->DataBlockHandles());
  for (const sst::BlockHandle& h : handles) {
    ROCKPOOL_RETURN_IF_ERROR(file->ReadBlockContents(h, sst::BlockKind::kData).status());
  }
  return absl::OkStatus();
}

std::vector<InputReport> InputReports(const std::vector<InputFile>& ssts,
                                      const std::vector<BlobInput>& blobs) {
  std::vector<InputReport> out;
  for (const InputFile& in : ssts) {
    InputReport& r = out.emplace_back();
    r.path = in.path;
    r.codec = CodecName(in.codec.type);
    r.level = in.codec.level;
    r.data_blocks = in.data_blocks;
    r.stored_data_bytes = in.stored_data_bytes;
    r.format_version = in.format_version;
    r.checksum = std::string(sst::ChecksumTypeName(static_cast<sst::ChecksumType>(in.checksum)));
    r.dictionary = in.has_dictionary;
  }
  for (const BlobInput& in : blobs) {
    InputReport& r = out.emplace_back();
    r.path = in.path;
    r.kind = in.has_footer ? "blob" : "blob (no footer: still being written)";
    r.codec = CodecName(in.compression);
    r.level = 32767;
    r.data_blocks = in.records;
    r.stored_data_bytes = in.stored_value_bytes;
    r.format_version = 1;
    r.checksum = "crc32c";
  }
  return out;
}

}  // namespace rockpool::replay
