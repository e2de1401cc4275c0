// Adapts rockpool's pooled codecs (//compression:block_codecs) to the SST
// reader's SstReadOptions::decompressor hook. Kept out of :sst_reader so the
// reader itself stays codec-free (fuzzers, format-only users).
#ifndef ROCKPOOL_TOOLS_SST_CODEC_DECOMPRESSOR_H_
#define ROCKPOOL_TOOLS_SST_CODEC_DECOMPRESSOR_H_

#include "compression/block_codecs.h"
#include "tools/sst/sst_file.h"

namespace rockpool::sst {

// A BlockDecompressor over `codecs` (which must outlive it): zstd and zlib
// blocks, with the file's compression dictionary digested once and reused
// while the same dictionary bytes keep coming. Thread-safe.
BlockDecompressor MakeBlockCodecsDecompressor(const BlockCodecs* codecs);

}  // namespace rockpool::sst

#endif  // ROCKPOOL_TOOLS_SST_CODEC_DECOMPRESSOR_H_
