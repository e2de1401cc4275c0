// SstFile: read-only access to a RocksDB block-based table (RocksDB 7.x to
// 11.x, format_version 0..7) as plain bytes. No RocksDB headers, no codecs:
// compressed blocks go through a caller-supplied BlockDecompressor.
//
// Open() reads and checks the footer, the metaindex, the properties block
// and the compression dictionary; DataBlockHandles() walks the index
// (binary-search, hash-search, with-first-key or partitioned). Errors are
// one-line absl::Status messages "<file>: offset <N>: <what>" (codes in
// tools/sst/errors.h). Hostile input yields errors, never crashes; every
// allocation is bounded by the file size or SstReadOptions::max_block_size.
//
// An SstFile is immutable after Open; its const methods may be called from
// several threads at once if the decompressor allows that.
#ifndef ROCKPOOL_TOOLS_SST_SST_FILE_H_
#define ROCKPOOL_TOOLS_SST_SST_FILE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/sst/block_handle.h"
#include "tools/sst/byte_source.h"
#include "tools/sst/footer.h"
#include "tools/sst/index_block.h"
#include "tools/sst/metaindex.h"
#include "tools/sst/properties.h"

namespace rockpool::sst {

// Decompresses one block. `compression_type` is the trailer byte (7 = zstd,
// 2 = zlib, ...); `payload` the block bytes without trailer (for
// format_version >= 2 and zlib/bzip2/lz4/zstd: varint32 uncompressed size,
// then the codec payload; zlib is raw deflate). `dictionary` holds the raw
// "rocksdb.compression_dict" bytes when a data block of a file with a
// dictionary is decompressed, and is empty otherwise (RocksDB compresses
// only data blocks with the dictionary). The hook must bound its output
// (e.g. reject declared sizes it cannot honour) and fill *out.
using BlockDecompressor =
    std::function<absl::Status(uint8_t compression_type, std::string_view payload,
                               std::string_view dictionary, std::string* out)>;

struct SstReadOptions {
  // Verify the footer checksum (format_version >= 6) and the checksums of
  // the blocks read by Open(), DataBlockHandles() and ReadBlockContents().
  bool verify_checksums = true;
  // Needed only for files with compressed blocks (RocksDB compresses index
  // blocks by default). Empty: compressed blocks fail with Unimplemented.
  BlockDecompressor decompressor;
  // Upper bound for any block, stored or decompressed (ResourceExhausted).
  uint64_t max_block_size = uint64_t{256} << 20;
};

// Which kind of block is being decompressed: only data blocks use the
// compression dictionary.
enum class BlockKind { kData, kIndex, kMeta };

struct RawBlock {
  BlockHandle handle;
  uint8_t compression_type = 0;
  uint32_t stored_checksum = 0;  // as stored (context modifier included)
  std::string bytes;             // payload followed by the 5-byte trailer

  std::string_view payload() const {
    return std::string_view(bytes).substr(0, static_cast<size_t>(handle.size));
  }
};

class SstFile {
 public:
  // Opens `path` read-only; the file is never modified.
  static absl::StatusOr<std::unique_ptr<SstFile>> Open(const std::string& path,
                                                       SstReadOptions options = {});
  // Reads an SST image from memory (fuzzers). `name` appears in errors.
  static absl::StatusOr<std::unique_ptr<SstFile>> OpenFromBuffer(std::string contents,
                                                                 SstReadOptions options = {},
                                                                 std::string name = "<buffer>");

  SstFile(const SstFile&) = delete;
  SstFile& operator=(const SstFile&) = delete;
  ~SstFile();

  const std::string& name() const { return name_; }
  uint64_t file_size() const;
  const Footer& footer() const { return footer_; }
  const Metaindex& metaindex() const { return metaindex_; }
  // Empty if the file has no properties block.
  const TableProperties& properties() const { return properties_; }
  // The (top-level) index block: from the footer, or for format_version >= 6
  // from the metaindex.
  const BlockHandle& index_handle() const { return index_handle_; }
  IndexType index_type() const { return index_type_; }
  const IndexBlockFormat& index_format() const { return index_format_; }
  // Raw dictionary bytes; empty if the file has none.
  std::string_view compression_dictionary() const { return dictionary_; }

  // Handles of all data blocks, in file order (strictly increasing,
  // non-overlapping, before the footer). Reads the index (and its
  // partitions) through the decompressor.
  absl::StatusOr<std::vector<BlockHandle>> DataBlockHandles() const;
  // Handles of the index partitions of a kTwoLevelIndexSearch index, in file
  // order; empty for other index types.
  absl::StatusOr<std::vector<BlockHandle>> IndexPartitionHandles() const;

  // Reads a block and its trailer. The handle must lie before the footer.
  absl::StatusOr<RawBlock> ReadRawBlock(const BlockHandle& handle, bool verify_checksum) const;
  // DataLoss on mismatch; OK for kNoChecksum files.
  absl::Status VerifyChecksum(const RawBlock& block) const;
  // Uncompressed contents: a copy for type 0, else through the decompressor.
  absl::StatusOr<std::string> Decompress(const RawBlock& block, BlockKind kind) const;
  // ReadRawBlock (checksum verified iff options.verify_checksums), then
  // Decompress.
  absl::StatusOr<std::string> ReadBlockContents(const BlockHandle& handle,
                                                BlockKind kind = BlockKind::kData) const;

 private:
  SstFile(std::unique_ptr<ByteSource> source, SstReadOptions options, std::string name);
  absl::Status Init();
  absl::Status ReadProperties(const BlockHandle& handle);
  absl::Status ResolveIndex();
  // Walks one index block, appending handles that must follow *min_offset.
  absl::Status CollectHandles(const BlockHandle& block_handle, const IndexBlockFormat& format,
                              uint64_t* min_offset, std::vector<BlockHandle>* out) const;
  absl::Status CheckInFileOrder(const BlockHandle& handle, uint64_t* min_offset,
                                std::string_view what) const;

  std::unique_ptr<ByteSource> source_;
  SstReadOptions options_;
  std::string name_;
  Footer footer_;
  Metaindex metaindex_;
  TableProperties properties_;
  BlockHandle index_handle_;
  IndexType index_type_ = IndexType::kBinarySearch;
  IndexBlockFormat index_format_;
  std::string dictionary_;
};

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_SST_FILE_H_
