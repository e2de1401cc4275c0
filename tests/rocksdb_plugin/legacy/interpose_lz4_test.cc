// LZ4 through the legacy face's interposers, called directly (no RocksDB):
// streams from LZ4_createStream[HC] are pooled, as new as liblz4's own, give
// byte-identical blocks in RocksDB's call sequence, and every stream
// rockpool did not hand out goes to liblz4 untouched, whenever it is freed.
#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4hc.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/legacy/runtime_internal.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

using ::rockpool::testing::SemiCompressible;

// RocksDB 7.8.3's LZ4_Compress: a new stream per block (payload only).
std::string Lz4RocksDBStyle(const std::string& in, const std::string& dict) {
  std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))), '\0');
  LZ4_stream_t* stream = LZ4_createStream();
  if (!dict.empty()) LZ4_loadDict(stream, dict.data(), static_cast<int>(dict.size()));
  const int n = LZ4_compress_fast_continue(
      stream, in.data(), out.data(), static_cast<int>(in.size()), static_cast<int>(out.size()), 1);
  EXPECT_EQ(LZ4_freeStream(stream), 0);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

// RocksDB 7.8.3's LZ4HC_Compress.
std::string Lz4HcRocksDBStyle(const std::string& in, int level, const std::string& dict) {
  std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))), '\0');
  LZ4_streamHC_t* stream = LZ4_createStreamHC();
  LZ4_resetStreamHC(stream, level);
  if (!dict.empty()) LZ4_loadDictHC(stream, dict.data(), static_cast<int>(dict.size()));
  const int n = LZ4_compress_HC_continue(stream, in.data(), out.data(), static_cast<int>(in.size()),
                                         static_cast<int>(out.size()));
  EXPECT_EQ(LZ4_freeStreamHC(stream), 0);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

TEST_F(InterposeTest, Lz4BlocksAreIdenticalAndStreamsReused) {
  const std::string dict = SemiCompressible(8192, 1);
  std::vector<std::string> inputs;
  for (size_t size : {0, 100, 4096, 65536, 300000}) inputs.push_back(SemiCompressible(size, size));
  std::vector<std::string> want;
  Configure(Off());
  for (const std::string& in : inputs) {
    for (const std::string& d : {std::string(), dict}) {
      want.push_back(Lz4RocksDBStyle(in, d));
      for (int level : {0, 1, 9, 12}) want.push_back(Lz4HcRocksDBStyle(in, level, d));
    }
  }
  Configure(On());
  const CompressionPoolsStats before = Stats();
  for (int round = 0; round < 2; ++round) {
    size_t i = 0;
    for (const std::string& in : inputs) {
      for (const std::string& d : {std::string(), dict}) {
        ASSERT_TRUE(Same(Lz4RocksDBStyle(in, d), want[i++])) << in.size();
        for (int level : {0, 1, 9, 12}) {
          ASSERT_TRUE(Same(Lz4HcRocksDBStyle(in, level, d), want[i++])) << level;
        }
      }
    }
  }
  const CompressionPoolsStats after = Stats();
  const uint64_t per_kind = 2 * inputs.size() * 2;  // rounds x inputs x dictionaries
  EXPECT_EQ(after.lz4.created - before.lz4.created, 1u);
  EXPECT_EQ(after.lz4.reused - before.lz4.reused, per_kind - 1);
  EXPECT_EQ(after.lz4hc.created - before.lz4hc.created, 1u);
  EXPECT_EQ(after.lz4hc.reused - before.lz4hc.reused, per_kind * 4 - 1);
  EXPECT_EQ(after.lz4hc.library.bytes_allocated - before.lz4hc.library.bytes_allocated,
            static_cast<uint64_t>(LZ4_sizeofStateHC()));
}

TEST_F(InterposeTest, APooledStreamIsAsNewAsLiblz4s) {
  Configure(Off());
  LZ4_stream_t* fresh = LZ4_createStream();
  LZ4_streamHC_t* fresh_hc = LZ4_createStreamHC();
  Configure(On());
  const std::string in = SemiCompressible(50000, 2);
  Lz4RocksDBStyle(in, SemiCompressible(4096, 3));  // dirty the pooled streams
  Lz4HcRocksDBStyle(in, 12, SemiCompressible(4096, 3));
  LZ4_stream_t* pooled = LZ4_createStream();
  LZ4_streamHC_t* pooled_hc = LZ4_createStreamHC();
  EXPECT_EQ(Outstanding().lz4, 1);
  EXPECT_EQ(Outstanding().lz4hc, 1);
  EXPECT_EQ(std::memcmp(&pooled->internal_donotuse, &fresh->internal_donotuse,
                        sizeof(fresh->internal_donotuse)),
            0);
  EXPECT_EQ(std::memcmp(&pooled_hc->internal_donotuse, &fresh_hc->internal_donotuse,
                        sizeof(fresh_hc->internal_donotuse)),
            0);
  // Freed while pooling is on: liblz4's own go to liblz4, ours come back.
  EXPECT_EQ(LZ4_freeStream(fresh), 0);
  EXPECT_EQ(LZ4_freeStreamHC(fresh_hc), 0);
  EXPECT_EQ(Outstanding().lz4, 1);
  EXPECT_EQ(LZ4_freeStream(pooled), 0);
  EXPECT_EQ(LZ4_freeStreamHC(pooled_hc), 0);
  EXPECT_EQ(Outstanding().lz4, 0);
  EXPECT_EQ(Outstanding().lz4hc, 0);
  EXPECT_EQ(LZ4_freeStream(nullptr), 0);
  EXPECT_EQ(LZ4_freeStreamHC(nullptr), 0);
}

// RocksDB resets each new LZ4HC stream to its level: on a pooled stream
// nobody has used, rockpool only sets the level (no second 256 KiB clear).
// Whichever path runs, the stream ends exactly as liblz4's own reset leaves
// liblz4's own new stream.
TEST_F(InterposeTest, ResettingAPooledHcStreamLeavesLiblz4sState) {
  const std::string in = SemiCompressible(50000, 4);
  const std::string dict = SemiCompressible(4096, 5);
  for (int level : {-3, 0, 1, 4, 9, 12, 20}) {
    Configure(Off());
    LZ4_streamHC_t* want = LZ4_createStreamHC();
    LZ4_resetStreamHC(want, level);
    Configure(On());
    // Fresh from the pool; then used (a dictionary loaded) before the reset.
    for (bool used : {false, true}) {
      LZ4_streamHC_t* pooled = LZ4_createStreamHC();
      const Lz4Copy& copy = *Lz4Routes().bound_copy();
      EXPECT_TRUE(internal::Runtime::Get()->FreshLz4HcStream(copy, pooled));
      if (used) {
        LZ4_loadDictHC(pooled, dict.data(), static_cast<int>(dict.size()));
        EXPECT_FALSE(internal::Runtime::Get()->FreshLz4HcStream(copy, pooled));
      }
      LZ4_resetStreamHC(pooled, level);
      EXPECT_EQ(std::memcmp(&pooled->internal_donotuse, &want->internal_donotuse,
                            sizeof(want->internal_donotuse)),
                0)
          << "level " << level << (used ? ", used" : ", fresh");
      EXPECT_EQ(LZ4_freeStreamHC(pooled), 0);
    }
    // liblz4's own stream is never taken for a pooled one.
    EXPECT_FALSE(internal::Runtime::Get()->FreshLz4HcStream(*Lz4Routes().bound_copy(), want));
    EXPECT_EQ(LZ4_freeStreamHC(want), 0);
  }
  EXPECT_EQ(Outstanding().lz4hc, 0);
  // And compressed blocks stay identical (Lz4BlocksAreIdenticalAndStreamsReused
  // covers every level with and without a dictionary).
  Configure(Off());
  const std::string stock = Lz4HcRocksDBStyle(in, 9, dict);
  Configure(On());
  EXPECT_TRUE(Same(Lz4HcRocksDBStyle(in, 9, dict), stock));
}

TEST_F(InterposeTest, Lz4StreamsLeasedBeforePoolingStopsComeBackAfter) {
  LZ4_stream_t* a = LZ4_createStream();
  LZ4_streamHC_t* b = LZ4_createStreamHC();
  EXPECT_EQ(Outstanding().lz4, 1);
  Configure(Off());  // frees the idle ones; these two are still out
  LZ4_stream_t* forwarded = LZ4_createStream();
  EXPECT_EQ(Outstanding().lz4, 1);
  // Either free call takes either kind, as liblz4's (both are free()).
  EXPECT_EQ(LZ4_freeStreamHC(reinterpret_cast<LZ4_streamHC_t*>(a)), 0);
  EXPECT_EQ(LZ4_freeStream(reinterpret_cast<LZ4_stream_t*>(b)), 0);
  EXPECT_EQ(LZ4_freeStream(forwarded), 0);
  EXPECT_EQ(Outstanding().lz4, 0);
  EXPECT_EQ(Outstanding().lz4hc, 0);
}

TEST_F(InterposeTest, Lz4FromManyThreadsAtOnce) {
  const std::string in = SemiCompressible(16384, 4), dict = SemiCompressible(2048, 5);
  Configure(Off());
  const std::string want = Lz4RocksDBStyle(in, dict);
  const std::string want_hc = Lz4HcRocksDBStyle(in, 4, dict);
  Configure(On());
  const CompressionPoolsStats before = Stats();
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        if (Lz4RocksDBStyle(in, dict) != want) ++wrong[t];
        if (Lz4HcRocksDBStyle(in, 4, dict) != want_hc) ++wrong[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  // At most one stream per thread at a time, and the cap (8) keeps them.
  const CompressionPoolsStats s = Stats();
  EXPECT_LE(s.lz4.created - before.lz4.created, 8u);
  EXPECT_LE(s.lz4hc.created - before.lz4hc.created, 8u);
  EXPECT_EQ(s.lz4.reused + s.lz4.created - before.lz4.reused - before.lz4.created, 320u);
}

}  // namespace
}  // namespace rockpool::legacy
