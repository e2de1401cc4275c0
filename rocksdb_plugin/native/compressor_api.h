// The Compressor interface changed between RocksDB 10.4 (the first release
// with CompressionManager) and 11.x. These checks adapt rockpool's
// signatures to the RocksDB it is compiled against; every version gets the
// same features (pooled contexts, dictionaries, parallel compression).
//
//   10.6  CompressBlock writes into the caller's buffer (char*, size_t*)
//         instead of a std::string; Compressor::GetOptimizedDecompressor().
//   10.9  Compressor::Clone(); MaybeCloneSpecialized() is const.
//   11.0  MaybeCloneSpecialized() takes DictConfigArgs (samples or a
//         predefined dictionary) instead of DictSampleArgs.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_COMPRESSOR_API_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_COMPRESSOR_API_H_

#include "rocksdb/advanced_compression.h"
#include "rocksdb/version.h"

#define ROCKPOOL_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#define ROCKPOOL_COMPRESS_INTO_BUFFER ROCKPOOL_ROCKSDB_AT_LEAST(10, 6)
#define ROCKPOOL_OPTIMIZED_DECOMPRESSOR ROCKPOOL_ROCKSDB_AT_LEAST(10, 6)
#define ROCKPOOL_COMPRESSOR_CLONE ROCKPOOL_ROCKSDB_AT_LEAST(10, 9)
#define ROCKPOOL_DICT_CONFIG_ARGS ROCKPOOL_ROCKSDB_AT_LEAST(11, 0)

// MaybeCloneSpecialized's qualifier.
#if ROCKPOOL_COMPRESSOR_CLONE
#define ROCKPOOL_MAYBE_CLONE_CONST const
#else
#define ROCKPOOL_MAYBE_CLONE_CONST
#endif

namespace rockpool::native {

// MaybeCloneSpecialized's dictionary argument.
#if ROCKPOOL_DICT_CONFIG_ARGS
using DictArgs = rocksdb::Compressor::DictConfigArgs;
#else
using DictArgs = rocksdb::Compressor::DictSampleArgs;
#endif

}  // namespace rockpool::native

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_NATIVE_COMPRESSOR_API_H_
