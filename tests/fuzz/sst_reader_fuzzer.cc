// Fuzz target: the SST reader (//tools/sst) on an in-memory file image:
// footer, metaindex, properties, compression dictionary, index (every index
// type), block handles, trailers and checksums, and every data block through
// the pooled codecs, each walked entry by entry.
//
// The file is opened twice: with checksums verified (the real reading path)
// and without (so mutated files reach the parsers behind the checksums).
// Hostile input may only fail with the reader's documented codes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/codec_fuzz_support.h"
#include "tools/sst/block_iterator.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/index_block.h"
#include "tools/sst/sst_file.h"

using namespace rockpool;        // NOLINT
using namespace rockpool::fuzz;  // NOLINT

namespace {

// Bounds per input, so one input cannot run for long.
constexpr size_t kMaxBlocks = 512;
constexpr size_t kMaxEntriesPerBlock = 1 << 16;

// rockpool::sst's codes for bad files (tools/sst/errors.h), plus the codecs'
// bad-input codes (OutOfRange: a block over the codec's size limit).
bool IsReaderError(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kOutOfRange:
      return true;
    default:
      return false;
  }
}

// ROCKPOOL_FUZZ_VERBOSE=1 prints what each input reached (seed checks).
bool Verbose() {
  static const bool verbose = std::getenv("ROCKPOOL_FUZZ_VERBOSE") != nullptr;
  return verbose;
}

#define CHECK_READER_STATUS(s) FUZZ_CHECK_MSG(IsReaderError(s), (s).ToString())

void WalkBlock(std::string_view contents) {
  absl::StatusOr<sst::BlockIterator> it = sst::BlockIterator::Create(contents);
  if (!it.ok()) {
    CHECK_READER_STATUS(it.status());
    return;
  }
  size_t n = 0;
  while (n < kMaxEntriesPerBlock && it->Next()) {
    FUZZ_CHECK(it->value_offset() <= contents.size());
    FUZZ_CHECK(it->value().size() <= contents.size() - it->value_offset());
    ++n;
  }
  if (!it->status().ok()) CHECK_READER_STATUS(it->status());
}

void Walk(const sst::SstFile& file) {
  // Properties and dictionary are plain data once open; touch them.
  (void)file.properties();
  FUZZ_CHECK(file.compression_dictionary().size() <= file.file_size());

  absl::StatusOr<std::string> index =
      file.ReadBlockContents(file.index_handle(), sst::BlockKind::kIndex);
  if (index.ok()) {
    size_t n = 0;
    absl::Status s =
        sst::ForEachIndexEntry(*index, file.index_format(), [&](const sst::IndexEntryView& e) {
          FUZZ_CHECK(e.key.size() <= index->size());
          return ++n < kMaxEntriesPerBlock ? absl::OkStatus() : absl::CancelledError("enough");
        });
    if (!s.ok() && s.code() != absl::StatusCode::kCancelled) CHECK_READER_STATUS(s);
  } else {
    CHECK_READER_STATUS(index.status());
  }

  absl::StatusOr<std::vector<sst::BlockHandle>> partitions = file.IndexPartitionHandles();
  if (!partitions.ok()) CHECK_READER_STATUS(partitions.status());

  absl::StatusOr<std::vector<sst::BlockHandle>> handles = file.DataBlockHandles();
  if (!handles.ok()) {
    CHECK_READER_STATUS(handles.status());
    return;
  }
  uint64_t previous_end = 0;
  size_t decoded = 0;
  for (size_t i = 0; i < handles->size() && i < kMaxBlocks; ++i) {
    const sst::BlockHandle& h = (*handles)[i];
    // Documented: in file order, non-overlapping, before the footer.
    FUZZ_CHECK(h.offset >= previous_end);
    FUZZ_CHECK(h.size <= file.file_size() && h.offset <= file.file_size() - h.size);
    previous_end = h.offset + h.size;
    absl::StatusOr<std::string> contents = file.ReadBlockContents(h, sst::BlockKind::kData);
    if (!contents.ok()) {
      CHECK_READER_STATUS(contents.status());
      continue;
    }
    WalkBlock(*contents);
    ++decoded;
  }
  if (Verbose()) {
    std::fprintf(stderr, "  %zu data blocks, %zu decoded, dictionary %zu bytes, index type %u\n",
                 handles->size(), decoded, file.compression_dictionary().size(),
                 static_cast<unsigned>(file.index_type()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CodecFuzzState& state = State();
  for (bool verify : {true, false}) {
    sst::SstReadOptions options;
    options.verify_checksums = verify;
    options.decompressor = sst::MakeBlockCodecsDecompressor(&state.codecs);
    options.max_block_size = kMaxUncompressedSize;
    absl::StatusOr<std::unique_ptr<sst::SstFile>> file =
        sst::SstFile::OpenFromBuffer(std::string(AsView(data, size)), options, "fuzz.sst");
    if (!file.ok()) {
      if (Verbose())
        std::fprintf(stderr, "  open (verify=%d): %s\n", verify, file.status().ToString().c_str());
      CHECK_READER_STATUS(file.status());
      continue;
    }
    FUZZ_CHECK((*file)->file_size() == size);
    Walk(**file);
  }
  CheckPoolInvariants(state.pools);
  return 0;
}
