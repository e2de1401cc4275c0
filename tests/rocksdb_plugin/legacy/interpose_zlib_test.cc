// zlib through the legacy face's interposers, called directly (no RocksDB):
// deflate and inflate streams are byte-identical to zlib's own and reused;
// parameter changes, copies, caller allocators and errors behave as in zlib.
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rocksdb_plugin/legacy/runtime.h"
#include "tests/compression/test_data.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

using ::rockpool::testing::FreshTestPath;
using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

constexpr int kStreamSize = static_cast<int>(sizeof(z_stream));

TEST_F(InterposeTest, DeflateIsIdenticalAndReused) {
  const std::vector<DeflateParams> params = {
      {Z_DEFAULT_COMPRESSION, -14, 8, Z_DEFAULT_STRATEGY},  // RocksDB's default
      {1, -14, 8, Z_DEFAULT_STRATEGY},
      {9, -14, 8, Z_DEFAULT_STRATEGY},
      {6, -15, 8, Z_FILTERED},
      {6, -10, 8, Z_HUFFMAN_ONLY},
      {4, -14, 8, Z_RLE},
      {6, -14, 8, Z_FIXED},
      {6, 15, 8, Z_DEFAULT_STRATEGY},   // zlib framing
      {6, 31, 9, Z_DEFAULT_STRATEGY},   // gzip framing
      {6, 8, 1, Z_DEFAULT_STRATEGY},    // smallest window (zlib makes it 9)
      {0, -14, 8, Z_DEFAULT_STRATEGY},  // stored
  };
  const std::string in = SemiCompressible(16384, 2);
  std::vector<DeflateResult> reference;
  Configure(Off());
  for (const auto& p : params) reference.push_back(DeflateOnce(in, p));
  Configure(On());
  const PoolStats before = Stats().deflate;
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < params.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "params #" << i << " round " << round);
      const DeflateResult r = DeflateOnce(in, params[i]);
      EXPECT_TRUE(Same(r.bytes, reference[i].bytes));
      EXPECT_EQ(r.end_rc, reference[i].end_rc);
      EXPECT_EQ(r.adler_after_init, reference[i].adler_after_init);
      EXPECT_EQ(r.data_type_after_init, reference[i].data_type_after_init);
      EXPECT_TRUE(r.msg_null_after_init);
    }
  }
  const PoolStats after = Stats().deflate;
  // Level -1 and 6 share a key: one context per distinct key, the rest reused.
  EXPECT_EQ(after.created - before.created, params.size());
  EXPECT_EQ(after.reused - before.reused, 3 * params.size() - params.size());
}

TEST_F(InterposeTest, InvalidParametersGetZlibsErrors) {
  for (auto [level, wb, mem, strategy] : std::vector<std::array<int, 4>>{{10, -14, 8, 0},
                                                                         {6, -8, 8, 0},
                                                                         {6, -16, 8, 0},
                                                                         {6, -14, 10, 0},
                                                                         {6, -14, 8, 5},
                                                                         {6, 24, 8, 0}}) {
    Configure(Off());
    z_stream a;
    std::memset(&a, 0, sizeof(a));
    const int want = deflateInit2(&a, level, Z_DEFLATED, wb, mem, strategy);
    if (want == Z_OK) deflateEnd(&a);
    Configure(On());
    z_stream b;
    std::memset(&b, 0, sizeof(b));
    EXPECT_EQ(deflateInit2(&b, level, Z_DEFLATED, wb, mem, strategy), want)
        << level << " " << wb << " " << mem << " " << strategy;
    if (want == Z_OK) deflateEnd(&b);
  }
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  EXPECT_EQ(deflateInit2_(&s, 6, Z_DEFLATED, -14, 8, 0, "2.0", kStreamSize), Z_VERSION_ERROR);
  EXPECT_EQ(deflateInit2_(&s, 6, Z_DEFLATED, -14, 8, 0, ZLIB_VERSION, kStreamSize - 8),
            Z_VERSION_ERROR);
  EXPECT_EQ(inflateInit2_(&s, -14, nullptr, kStreamSize), Z_VERSION_ERROR);
  EXPECT_EQ(deflateInit2(&s, 6, 7 /* method */, -14, 8, 0), Z_STREAM_ERROR);
  EXPECT_EQ(deflateEnd(nullptr), Z_STREAM_ERROR);
  EXPECT_EQ(inflateEnd(nullptr), Z_STREAM_ERROR);
}

TEST_F(InterposeTest, EndMidStreamReturnsWhatZlibReturns) {
  const std::string noise = Incompressible(65536, 3);
  for (int wb : {-14, 15, 31}) {
    int want_fresh, want_busy;
    for (bool pooled : {false, true}) {
      Configure(pooled ? On() : Off());
      z_stream s;
      std::memset(&s, 0, sizeof(s));
      ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, wb, 8, Z_DEFAULT_STRATEGY), Z_OK);
      const int fresh = deflateEnd(&s);
      std::memset(&s, 0, sizeof(s));
      ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, wb, 8, Z_DEFAULT_STRATEGY), Z_OK);
      std::string out(64, '\0');
      s.next_in = B(noise);
      s.avail_in = static_cast<uInt>(noise.size());
      s.next_out = B(out);
      s.avail_out = static_cast<uInt>(out.size());
      ASSERT_EQ(deflate(&s, Z_NO_FLUSH), Z_OK);
      const int busy = deflateEnd(&s);
      EXPECT_EQ(s.state, nullptr);
      if (!pooled) {
        want_fresh = fresh;
        want_busy = busy;
        EXPECT_EQ(busy, Z_DATA_ERROR);
      } else {
        EXPECT_EQ(fresh, want_fresh) << wb;
        EXPECT_EQ(busy, want_busy) << wb;
        EXPECT_EQ(deflateEnd(&s), Z_STREAM_ERROR);  // ended twice
      }
    }
    // The context ended mid-stream was reset: the next stream is clean.
    const std::string in = SemiCompressible(5000, 4);
    Configure(Off());
    const DeflateResult want = DeflateOnce(in, {6, wb, 8, Z_DEFAULT_STRATEGY});
    Configure(On());
    EXPECT_TRUE(Same(DeflateOnce(in, {6, wb, 8, Z_DEFAULT_STRATEGY}).bytes, want.bytes));
  }
}

TEST_F(InterposeTest, ReinitialisingTheSameStreamWorks) {
  const std::string in = SemiCompressible(3000, 5);
  Configure(Off());
  const DeflateResult want = DeflateOnce(in, {6, -14, 8, 0});
  Configure(On());
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  for (int i = 0; i < 3; ++i) {  // no memset in between, as some callers do
    ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
    std::string out(deflateBound(&s, in.size()), '\0');
    s.next_in = B(in);
    s.avail_in = static_cast<uInt>(in.size());
    s.next_out = B(out);
    s.avail_out = static_cast<uInt>(out.size());
    ASSERT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
    out.resize(s.total_out);
    EXPECT_TRUE(Same(out, want.bytes));
    ASSERT_EQ(deflateEnd(&s), Z_OK);
  }
}

struct CallerAllocator {
  int allocs = 0;
  int frees = 0;
  static voidpf Alloc(voidpf opaque, uInt items, uInt size) {
    ++static_cast<CallerAllocator*>(opaque)->allocs;
    return std::calloc(items, size);
  }
  static void Free(voidpf opaque, voidpf p) {
    ++static_cast<CallerAllocator*>(opaque)->frees;
    std::free(p);
  }
};

TEST_F(InterposeTest, CallerAllocatorsAreLeftAlone) {
  const CompressionPoolsStats before = Stats();
  CallerAllocator mine;
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  s.zalloc = &CallerAllocator::Alloc;
  s.zfree = &CallerAllocator::Free;
  s.opaque = &mine;
  ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
  EXPECT_EQ(deflateEnd(&s), Z_OK);
  std::memset(&s, 0, sizeof(s));
  s.zalloc = &CallerAllocator::Alloc;  // one of the two set: still forwarded
  s.opaque = &mine;
  ASSERT_EQ(inflateInit2(&s, -14), Z_OK);
  EXPECT_EQ(inflateEnd(&s), Z_OK);
  EXPECT_GT(mine.allocs, 0);
  EXPECT_EQ(Stats().Total().created + Stats().Total().reused,
            before.Total().created + before.Total().reused);
}

TEST_F(InterposeTest, DeflateParamsDiscardsTheContext) {
  const std::string in = SemiCompressible(20000, 6);
  auto run = [&] {
    z_stream s;
    std::memset(&s, 0, sizeof(s));
    EXPECT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
    std::string out(deflateBound(&s, in.size()) + 64, '\0');
    s.next_in = B(in);
    s.avail_in = static_cast<uInt>(in.size() / 2);
    s.next_out = B(out);
    s.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&s, Z_NO_FLUSH), Z_OK);
    EXPECT_EQ(deflateParams(&s, 1, Z_FILTERED), Z_OK);
    s.avail_in = static_cast<uInt>(in.size() - in.size() / 2);
    EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
    out.resize(s.total_out);
    EXPECT_EQ(deflateEnd(&s), Z_OK);
    return out;
  };
  Configure(Off());
  const std::string want = run();
  Configure(On());
  DeflateOnce(in, {6, -14, 8, 0});  // one idle context for the key
  const uint64_t discarded = DiscardedContexts();
  EXPECT_EQ(run(), want);
  EXPECT_EQ(DiscardedContexts(), discarded + 1);
  // The key's next stream is exactly a fresh level-6 one.
  Configure(Off());
  const DeflateResult fresh = DeflateOnce(in, {6, -14, 8, 0});
  Configure(On());
  EXPECT_TRUE(Same(DeflateOnce(in, {6, -14, 8, 0}).bytes, fresh.bytes));
}

TEST_F(InterposeTest, GzipHeaderDoesNotOutliveItsStream) {
  const std::string in = SemiCompressible(3000, 7);
  auto with_header = [&] {
    gz_header head;
    std::memset(&head, 0, sizeof(head));
    std::string name = "file.txt";
    head.name = B(name);
    head.time = 1234;
    z_stream s;
    std::memset(&s, 0, sizeof(s));
    EXPECT_EQ(deflateInit2(&s, 6, Z_DEFLATED, 31, 8, 0), Z_OK);
    EXPECT_EQ(deflateSetHeader(&s, &head), Z_OK);
    std::string out(deflateBound(&s, in.size()) + 64, '\0');
    s.next_in = B(in);
    s.avail_in = static_cast<uInt>(in.size());
    s.next_out = B(out);
    s.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
    out.resize(s.total_out);
    EXPECT_EQ(deflateEnd(&s), Z_OK);
    return out;
  };
  Configure(Off());
  const std::string want_named = with_header();
  const DeflateResult want_plain = DeflateOnce(in, {6, 31, 8, 0});
  Configure(On());
  const uint64_t discarded = DiscardedContexts();
  EXPECT_EQ(with_header(), want_named);
  EXPECT_EQ(DiscardedContexts(), discarded + 1);
  EXPECT_TRUE(Same(DeflateOnce(in, {6, 31, 8, 0}).bytes, want_plain.bytes));
}

TEST_F(InterposeTest, DeflateCopyOfAPooledStream) {
  const std::string in = SemiCompressible(30000, 8);
  Configure(Off());
  const DeflateResult want = DeflateOnce(in, {6, -14, 8, 0});
  Configure(On());
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
  std::string out1(deflateBound(&s, in.size()), '\0');
  s.next_in = B(in);
  s.avail_in = 10000;
  s.next_out = B(out1);
  s.avail_out = static_cast<uInt>(out1.size());
  ASSERT_EQ(deflate(&s, Z_NO_FLUSH), Z_OK);
  z_stream copy;
  ASSERT_EQ(deflateCopy(&copy, &s), Z_OK);
  std::string out2 = out1;
  copy.next_out = B(out2) + (s.next_out - B(out1));
  // Finish the original, end it (back to the pool), then finish the copy.
  s.avail_in = static_cast<uInt>(in.size() - 10000);
  ASSERT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out1.resize(s.total_out);
  ASSERT_EQ(deflateEnd(&s), Z_OK);
  TrimIdle();  // the original's context is gone; the copy must not care
  copy.avail_in = static_cast<uInt>(in.size() - 10000);
  ASSERT_EQ(deflate(&copy, Z_FINISH), Z_STREAM_END);
  out2.resize(copy.total_out);
  ASSERT_EQ(deflateEnd(&copy), Z_OK);
  EXPECT_TRUE(Same(out1, want.bytes));
  EXPECT_TRUE(Same(out2, want.bytes));
}

TEST_F(InterposeTest, InflateIsCorrectAndReused) {
  const std::string in = SemiCompressible(50000, 9);
  Configure(Off());
  const std::string raw = DeflateOnce(in, {6, -14, 8, 0}).bytes;
  const std::string zlib = DeflateOnce(in, {6, 15, 8, 0}).bytes;
  const std::string gzip = DeflateOnce(in, {6, 31, 8, 0}).bytes;
  Configure(On());
  const PoolStats before = Stats().inflate;
  for (int round = 0; round < 4; ++round) {
    int rc;
    EXPECT_TRUE(Same(InflateAll(raw, -14, 4096, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_TRUE(Same(InflateAll(zlib, 15, 777, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_TRUE(Same(InflateAll(gzip, 31, 100000, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_TRUE(Same(InflateAll(gzip, 47, 5000, &rc), in));  // auto-detect
    EXPECT_EQ(rc, Z_STREAM_END);
  }
  const PoolStats after = Stats().inflate;
  EXPECT_EQ(after.created - before.created, 4u);
  EXPECT_EQ(after.reused - before.reused, 12u);
  EXPECT_GT(after.library.bytes_allocated, before.library.bytes_allocated);
}

TEST_F(InterposeTest, CorruptInputThenCleanContext) {
  const std::string in = SemiCompressible(20000, 10);
  Configure(Off());
  std::string raw = DeflateOnce(in, {6, -14, 8, 0}).bytes;
  std::string corrupt = raw;
  corrupt[corrupt.size() / 3] ^= 0x5a;
  corrupt[corrupt.size() / 2] ^= 0x33;
  int want_rc;
  const std::string want = InflateAll(corrupt, -14, 4096, &want_rc);
  Configure(On());
  for (int i = 0; i < 2; ++i) {
    int rc;
    EXPECT_EQ(InflateAll(corrupt, -14, 4096, &rc), want);
    EXPECT_EQ(rc, want_rc);
    EXPECT_TRUE(Same(InflateAll(raw, -14, 4096, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
  }
}

TEST_F(InterposeTest, InflateParameterChangesDiscard) {
  const std::string in = SemiCompressible(8000, 11);
  const std::string zlib = DeflateOnce(in, {6, 15, 8, 0}).bytes;
  const uint64_t discarded = DiscardedContexts();
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(inflateInit2(&s, 15), Z_OK);
  ASSERT_EQ(inflateReset2(&s, 15), Z_OK);  // same window: still poolable
  ASSERT_EQ(inflateEnd(&s), Z_OK);
  EXPECT_EQ(DiscardedContexts(), discarded);

  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(inflateInit2(&s, 15), Z_OK);
  ASSERT_EQ(inflateReset2(&s, 31), Z_OK);  // now a gzip stream
  ASSERT_EQ(inflateEnd(&s), Z_OK);
  EXPECT_EQ(DiscardedContexts(), discarded + 1);

  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(inflateInit2(&s, 15), Z_OK);
  ASSERT_EQ(inflateValidate(&s, 0), Z_OK);
  ASSERT_EQ(inflateEnd(&s), Z_OK);
  EXPECT_EQ(DiscardedContexts(), discarded + 2);

  int rc;
  EXPECT_TRUE(Same(InflateAll(zlib, 15, 1000, &rc), in));  // a clean one again
  EXPECT_EQ(rc, Z_STREAM_END);
}

// windowBits 0: the window size comes from each stream's zlib header, and
// inflate remembers it in the state; a pooled context must forget it.
TEST_F(InterposeTest, InflateWindowFromHeaderIsPerStream) {
  const std::string in = SemiCompressible(30000, 22);
  const std::string small = DeflateOnce(in, {6, 9, 8, 0}).bytes;
  const std::string large = DeflateOnce(in, {6, 15, 8, 0}).bytes;
  for (int i = 0; i < 3; ++i) {
    int rc;
    EXPECT_TRUE(Same(InflateAll(small, 0, 4096, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_TRUE(Same(InflateAll(large, 0, 4096, &rc), in));
    EXPECT_EQ(rc, Z_STREAM_END);
  }
}

TEST_F(InterposeTest, InflateCopyOfAPooledStream) {
  const std::string in = SemiCompressible(40000, 12);
  const std::string raw = DeflateOnce(in, {6, -14, 8, 0}).bytes;
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(inflateInit2(&s, -14), Z_OK);
  std::string out1(in.size(), '\0');
  s.next_in = B(raw);
  s.avail_in = static_cast<uInt>(raw.size());
  s.next_out = B(out1);
  s.avail_out = 10000;
  ASSERT_EQ(inflate(&s, Z_SYNC_FLUSH), Z_OK);
  z_stream copy;
  ASSERT_EQ(inflateCopy(&copy, &s), Z_OK);
  std::string out2 = out1;
  copy.next_out = B(out2) + 10000;
  s.avail_out = static_cast<uInt>(in.size() - 10000);
  ASSERT_EQ(inflate(&s, Z_SYNC_FLUSH), Z_STREAM_END);
  ASSERT_EQ(inflateEnd(&s), Z_OK);
  TrimIdle();
  copy.avail_out = static_cast<uInt>(in.size() - 10000);
  ASSERT_EQ(inflate(&copy, Z_SYNC_FLUSH), Z_STREAM_END);
  ASSERT_EQ(inflateEnd(&copy), Z_OK);
  EXPECT_TRUE(Same(out1, in));
  EXPECT_TRUE(Same(out2, in));
}

TEST_F(InterposeTest, ZlibsOwnHelpersWork) {
  const std::string in = SemiCompressible(100000, 13);
  std::string packed(compressBound(in.size()), '\0');
  uLongf packed_len = packed.size();
  ASSERT_EQ(compress2(B(packed), &packed_len, B(in), in.size(), 7), Z_OK);
  packed.resize(packed_len);
  std::string back(in.size(), '\0');
  uLongf back_len = back.size();
  ASSERT_EQ(uncompress(B(back), &back_len, B(packed), packed.size()), Z_OK);
  EXPECT_TRUE(Same(back, in));

  const std::string path = FreshTestPath("interpose_zlib_test.gz");
  gzFile out = gzopen(path.c_str(), "wb9");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, in.data(), static_cast<unsigned>(in.size())), static_cast<int>(in.size()));
  ASSERT_EQ(gzsetparams(out, 1, Z_DEFAULT_STRATEGY), Z_OK);  // deflateParams inside libz
  ASSERT_EQ(gzwrite(out, in.data(), 1000), 1000);
  ASSERT_EQ(gzclose(out), Z_OK);
  gzFile rd = gzopen(path.c_str(), "rb");
  ASSERT_NE(rd, nullptr);
  std::string read(in.size() + 1000, '\0');
  ASSERT_EQ(gzread(rd, read.data(), static_cast<unsigned>(read.size())),
            static_cast<int>(read.size()));
  ASSERT_EQ(gzclose(rd), Z_OK);
  EXPECT_EQ(read, in + in.substr(0, 1000));
}

}  // namespace
}  // namespace rockpool::legacy
