// Deterministic test inputs with the repetition of real records, and
// scratch paths for tests.
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

// $TEST_TMPDIR/name (/tmp/name outside Bazel), removed with its contents if
// it was there: for a DB that RocksDB creates.
std::string FreshTestPath(const std::string& name);
// The same, created as an empty directory.
std::string FreshTestDir(const std::string& name);

}  // namespace rockpool::testing

#endif  // ROCKPOOL_TESTS_COMPRESSION_TEST_DATA_H_
