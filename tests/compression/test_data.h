// Deterministic test inputs with the repetition of real records.
#ifndef ROCKPOOL_TESTS_COMPRESSION_TEST_DATA_H_
#define ROCKPOOL_TESTS_COMPRESSION_TEST_DATA_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace rockpool::testing {

// Key/value-like records: field names repeat, ids count up, some random
// bytes: compresses about 3-4x with zstd or zlib, like RocksDB data blocks.
std::string SemiCompressible(size_t size, uint64_t seed);

// Uniformly random bytes: does not compress.
std::string Incompressible(size_t size, uint64_t seed);

}  // namespace rockpool::testing

#endif  // ROCKPOOL_TESTS_COMPRESSION_TEST_DATA_H_
