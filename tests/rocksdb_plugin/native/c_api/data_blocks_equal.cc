// data_blocks_equal DIR_A DIR_B: exit 0 when the SST files of two DBs hold
// the same data blocks byte for byte (payload, compression type, in order),
// else 1 with the first difference on stderr. The DBs' files differ
// elsewhere (file numbers, session ids, creation times in the properties),
// so whole files cannot be compared; the data blocks are what the
// compression manager wrote. Prints "data_blocks_equal: N blocks in F files
// (C compressed)".
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/sst_file.h"

namespace {

using rockpool::sst::SstFile;

struct Count {
  size_t files = 0;
  size_t blocks = 0;
  size_t compressed = 0;
};

std::vector<std::string> SstFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());  // file numbers: write order
  return files;
}

absl::Status CompareFiles(const std::string& a, const std::string& b,
                          const rockpool::sst::SstReadOptions& options, Count* count) {
  absl::StatusOr<std::unique_ptr<SstFile>> fa = SstFile::Open(a, options);
  if (!fa.ok()) return fa.status();
  absl::StatusOr<std::unique_ptr<SstFile>> fb = SstFile::Open(b, options);
  if (!fb.ok()) return fb.status();
  auto ha = (*fa)->DataBlockHandles();
  if (!ha.ok()) return ha.status();
  auto hb = (*fb)->DataBlockHandles();
  if (!hb.ok()) return hb.status();
  if (ha->size() != hb->size()) {
    return absl::FailedPreconditionError(
        absl::StrCat(a, " has ", ha->size(), " data blocks, ", b, " ", hb->size()));
  }
  for (size_t i = 0; i < ha->size(); ++i) {
    auto ra = (*fa)->ReadRawBlock((*ha)[i], /*verify_checksum=*/true);
    if (!ra.ok()) return ra.status();
    auto rb = (*fb)->ReadRawBlock((*hb)[i], /*verify_checksum=*/true);
    if (!rb.ok()) return rb.status();
    if (ra->compression_type != rb->compression_type || ra->payload() != rb->payload()) {
      return absl::FailedPreconditionError(
          absl::StrCat("data block ", i, " differs: ", a, " (type ", int{ra->compression_type},
                       ", ", ra->payload().size(), " B) vs ", b, " (type ",
                       int{rb->compression_type}, ", ", rb->payload().size(), " B)"));
    }
    ++count->blocks;
    if (ra->compression_type != 0) ++count->compressed;
  }
  ++count->files;
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: data_blocks_equal DIR_A DIR_B\n");
    return 2;
  }
  const std::vector<std::string> a = SstFiles(argv[1]);
  const std::vector<std::string> b = SstFiles(argv[2]);
  if (a.empty() || a.size() != b.size()) {
    std::fprintf(stderr, "data_blocks_equal: %zu SST files in %s, %zu in %s\n", a.size(), argv[1],
                 b.size(), argv[2]);
    return 1;
  }
  rockpool::CompressionPools pools;
  rockpool::BlockCodecs codecs(&pools);
  rockpool::sst::SstReadOptions options;
  options.decompressor = rockpool::sst::MakeBlockCodecsDecompressor(&codecs);
  Count count;
  for (size_t i = 0; i < a.size(); ++i) {
    const absl::Status s = CompareFiles(a[i], b[i], options, &count);
    if (!s.ok()) {
      std::fprintf(stderr, "data_blocks_equal: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  std::printf("data_blocks_equal: %zu blocks in %zu files (%zu compressed)\n", count.blocks,
              count.files, count.compressed);
  return 0;
}
