// Shared by the interpose_*_test binaries: the legacy face's interposers
// called directly (no RocksDB). Every zstd and zlib call a test binary makes
// goes through rockpool, which it links statically (//rocksdb_plugin:legacy);
// outputs are compared with the library's own behaviour (pooling off = every
// call forwarded). Inputs come from //tests/compression:test_data.
#ifndef ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_INTERPOSE_TEST_UTIL_H_
#define ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_INTERPOSE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "rocksdb_plugin/options.h"

namespace rockpool::legacy {

// Compares without printing megabytes on failure.
::testing::AssertionResult Same(const std::string& a, const std::string& b);

// zlib's view of a string's bytes (zlib's input pointers are not const).
inline Bytef* B(const std::string& s) {
  return reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
}

// Pooling with the default options, and off (every call forwarded).
RockpoolOptions On();
RockpoolOptions Off();

struct DeflateParams {
  int level;
  int window_bits;
  int mem_level;
  int strategy;
};

struct DeflateResult {
  std::string bytes;
  int end_rc = 0;
  uLong adler_after_init = 0;
  int data_type_after_init = 0;
  bool msg_null_after_init = false;
};

// What RocksDB's Zlib_Compress does: a zeroed z_stream on the stack,
// deflateInit2, one deflate(Z_FINISH) into deflateBound, deflateEnd.
DeflateResult DeflateOnce(const std::string& in, const DeflateParams& p);

// RocksDB's Zlib_Uncompress: inflate with Z_SYNC_FLUSH (which allocates the
// window), output in `chunk`-byte steps.
std::string InflateAll(const std::string& in, int window_bits, size_t chunk, int* rc_out);

// What RocksDB's ZSTD_Compress does with a kept context: one
// ZSTD_compress_usingDict (no dictionary) at `level`.
std::string ZstdRocksDBStyle(ZSTD_CCtx* cctx, const std::string& in, int level);

// Pooling on and idle contexts trimmed before each test; after it, pooling
// off, no lease outstanding and nothing idle.
class InterposeTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_TESTS_ROCKSDB_PLUGIN_LEGACY_INTERPOSE_TEST_UTIL_H_
