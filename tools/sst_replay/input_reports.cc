#include "tools/sst_replay/input_reports.h"

#include <string>

#include "tools/sst/checksum.h"

namespace rockpool::replay {

std::vector<InputReport> InputReports(const std::vector<InputFile>& ssts,
                                      const std::vector<BlobInput>& blobs) {
  std::vector<InputReport> out;
  out.reserve(ssts.size() + blobs.size());
  for (const InputFile& in : ssts) {
    InputReport r;
    r.path = in.path;
    r.codec = CodecName(in.codec.type);
    r.level = in.codec.level;
    r.data_blocks = in.data_blocks;
    r.stored_data_bytes = in.stored_data_bytes;
    r.format_version = in.format_version;
    r.checksum = std::string(sst::ChecksumTypeName(static_cast<sst::ChecksumType>(in.checksum)));
    r.dictionary = in.has_dictionary;
    out.push_back(r);
  }
  for (const BlobInput& in : blobs) {
    InputReport r;
    r.path = in.path;
    r.kind = in.has_footer ? "blob" : "blob (no footer: still being written)";
    r.codec = CodecName(in.compression);
    r.level = 32767;
    r.data_blocks = in.records;
    r.stored_data_bytes = in.stored_value_bytes;
    r.format_version = 1;
    r.checksum = "crc32c";
    out.push_back(r);
  }
  return out;
}

}  // namespace rockpool::replay
