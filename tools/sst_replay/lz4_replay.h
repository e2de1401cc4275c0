// blocks mode's LZ4 and LZ4HC side: the streams the stock pattern's RocksDB
// holds per SST file, blob file and block (stock_patterns.h's Lz4Model),
// leased from the pools. Stock's pools keep nothing, so each stock lease is
// an LZ4_createStream[HC] and a free through the counting allocator. Every
// output is RocksDB's block format (varint32 size | LZ4 block).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_LZ4_REPLAY_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_LZ4_REPLAY_H_

#include <lz4.h>

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {

inline bool IsLz4Type(uint8_t type) { return type == 0x4 || type == 0x5; }

// One LZ4 file (SST or blob) at a time, as the pattern's RocksDB writes it:
// which streams it holds, handed to BlockCodecs::Compress per block.
class Lz4FileReplay {
 public:
  // `pools` must outlive this object.
  Lz4FileReplay(CompressionPools* pools, const StockPattern& pattern)
      : pools_(pools), pattern_(pattern) {}

  // An SST file begins (its table builder): `has_dictionary` says whether
  // the file compresses its data blocks with one; the working areas the
  // pattern obtains for it are leased.
  absl::Status StartSst(const CodecSettings& codec, bool has_dictionary, bool index_compressed);
  // A blob file begins (blocks mode: one BlobFileBuilder per blob file).
  absl::Status StartBlobFile(const CodecSettings& codec);
  // The stream a data block (or blob) / an index block is compressed on:
  // sets how's held LZ4 stream, or none (the codec then leases one for the
  // block, or uses no stream at all: RocksDB 10.7+'s LZ4 without a dictionary).
  void HoldForData(BlockCompression* how) const;
  void HoldForIndex(BlockCompression* how) const;
  // The file is done: its working areas go back (stock: freed).
  void Finish();

 private:
  CompressionPools* const pools_;
  const StockPattern& pattern_;
  bool per_block_ = true;  // this file's blocks each take a new stream
  Lz4Pool::Lease data_lz4_;
  Lz4HcPool::Lease data_hc_;
  Lz4HcPool::Lease index_hc_;
};

// RocksDB's LZ4_createStreamDecode ... LZ4_freeStreamDecode around one LZ4
// block or blob read; nothing for other types. The block itself is decoded
// by rockpool's codec (LZ4_decompress_safe_usingDict), which is what
// LZ4_setStreamDecode + LZ4_decompress_safe_continue do for one block.
using Lz4ReadStream = std::unique_ptr<LZ4_streamDecode_t, int (*)(LZ4_streamDecode_t*)>;
inline Lz4ReadStream OpenLz4ReadStream(uint8_t type) {
  return Lz4ReadStream(IsLz4Type(type) ? LZ4_createStreamDecode() : nullptr, &LZ4_freeStreamDecode);
}

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_LZ4_REPLAY_H_
