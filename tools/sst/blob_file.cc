#include "tools/sst/blob_file.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/crc32c.h"
#include "tools/sst/errors.h"

namespace rockpool::sst {
namespace {

uint32_t Fixed32(std::string_view s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, sizeof(v));
  return v;
}

uint64_t Fixed64(std::string_view s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, sizeof(v));
  return v;
}

uint32_t MaskedCrc(std::string_view s) { return crc32c::Mask(crc32c::Value(s.data(), s.size())); }

// A footer is exactly the last 32 bytes, starts with the magic and carries
// its own valid CRC. A record cannot be mistaken for one: a record header
// starting with the magic as its key size would need a 2.4 MB key here.
bool IsFooter(std::string_view data, size_t at) {
  return data.size() - at == kBlobFooterSize && Fixed32(data, at) == kBlobMagic &&
         Fixed32(data, at + 28) == MaskedCrc(data.substr(at, 28));
}

}  // namespace

absl::StatusOr<BlobFile> ParseBlobFile(std::string_view data, std::string_view file) {
  if (data.size() < kBlobHeaderSize) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(file),
                                                   ": offset 0: not a blob file: ", data.size(),
                                                   " bytes, shorter than ", "the 30-byte header"));
  }
  if (Fixed32(data, 0) != kBlobMagic) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ": offset 0: not a blob file: bad magic number"));
  }
  BlobFile out;
  out.header.version = Fixed32(data, 4);
  out.header.column_family_id = Fixed32(data, 8);
  out.header.has_ttl = (static_cast<uint8_t>(data[12]) & 1) != 0;
  out.header.compression = static_cast<uint8_t>(data[13]);
  out.header.expiration_first = Fixed64(data, 14);
  out.header.expiration_last = Fixed64(data, 22);
  if (out.header.version != 1) {
    return UnsupportedError(file, 4, absl::StrCat("blob file version ", out.header.version));
  }
  size_t at = kBlobHeaderSize;
  while (at < data.size()) {
    if (IsFooter(data, at)) {
      BlobFileFooter f;
      f.blob_count = Fixed64(data, at + 4);
      f.expiration_first = Fixed64(data, at + 12);
      f.expiration_last = Fixed64(data, at + 20);
      if (f.blob_count != out.records.size()) {
        return CorruptionError(file, at,
                               absl::StrCat("footer counts ", f.blob_count, " blobs, the file has ",
                                            out.records.size()));
      }
      out.footer = f;
      break;
    }
    if (data.size() - at < kBlobRecordHeaderSize) {
      return CorruptionError(
          file, at,
          absl::StrCat("truncated blob record header (", data.size() - at, " of 32 bytes)"));
    }
    if (Fixed32(data, at + 24) != MaskedCrc(data.substr(at, 24))) {
      return CorruptionError(file, at, "blob record header CRC mismatch");
    }
    BlobRecord r;
    r.offset = at;
    const uint64_t key_size = Fixed64(data, at);
    const uint64_t value_size = Fixed64(data, at + 8);
    r.expiration = Fixed64(data, at + 16);
    const size_t body = at + kBlobRecordHeaderSize;
    if (key_size > data.size() - body || value_size > data.size() - body - key_size) {
      return CorruptionError(file, at,
                             absl::StrCat("blob record of ", key_size, " + ", value_size,
                                          " bytes runs past the end of the file"));
    }
    r.key = data.substr(body, key_size);
    r.value = data.substr(body + key_size, value_size);
    const uint32_t crc = crc32c::Mask(
        crc32c::Extend(crc32c::Value(r.key.data(), r.key.size()), r.value.data(), r.value.size()));
    if (Fixed32(data, at + 28) != crc) {
      return CorruptionError(file, at, "blob record CRC mismatch");
    }
    out.records.push_back(r);
    at = body + key_size + value_size;
  }
  return out;
}

}  // namespace rockpool::sst
