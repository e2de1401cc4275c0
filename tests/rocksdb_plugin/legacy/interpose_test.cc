// The legacy face's interposers, called directly (no RocksDB): every zstd and
// zlib call a program makes goes through rockpool in this binary, which
// depends on //rocksdb_plugin:legacy. Outputs are compared with the library's
// own behaviour (pooling off = every call forwarded).
#include <gtest/gtest.h>

#include <zlib.h>
#include <cstdio>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_CCtx_getParameter, ZSTD_createCCtx_advanced
#include <zstd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compression/block_codecs.h"
#include "compression/counting_allocator.h"
#include "compression/zstd_contexts.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"

namespace rockpool::legacy {
namespace {

constexpr int kStreamSize = static_cast<int>(sizeof(z_stream));

// Compressible text with some randomness.
std::string TestData(size_t n, uint32_t seed) {
  static const char* const kWords[] = {"rock",  "pool", "zstd",  "zlib",       "block", "cache",
                                       "level", "key",  "value", "compaction", "flush"};
  std::string s;
  uint32_t x = seed * 2654435761u + 1;
  while (s.size() < n) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s += kWords[x % 11];
    s += static_cast<char>('a' + (x >> 8) % 26);
    s += ' ';
  }
  s.resize(n);
  return s;
}

std::string Noise(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed | 1;
  for (char& c : s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

// Compares without printing megabytes on failure.
testing::AssertionResult Same(const std::string& a, const std::string& b) {
  if (a == b) return testing::AssertionSuccess();
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return testing::AssertionFailure()
         << "sizes " << a.size() << " vs " << b.size() << ", first difference at byte " << i;
}

Bytef* B(const std::string& s) { return reinterpret_cast<Bytef*>(const_cast<char*>(s.data())); }

RockpoolOptions On() { return RockpoolOptions{}; }
RockpoolOptions Off() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

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
DeflateResult DeflateOnce(const std::string& in, const DeflateParams& p) {
  DeflateResult r;
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  s.adler = 12345;  // must be overwritten by init
  s.msg = const_cast<char*>("stale");
  EXPECT_EQ(deflateInit2(&s, p.level, Z_DEFLATED, p.window_bits, p.mem_level, p.strategy), Z_OK);
  r.adler_after_init = s.adler;
  r.data_type_after_init = s.data_type;
  r.msg_null_after_init = s.msg == nullptr;
  r.bytes.resize(deflateBound(&s, in.size()));
  s.next_in = B(in);
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = B(r.bytes);
  s.avail_out = static_cast<uInt>(r.bytes.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  r.bytes.resize(s.total_out);
  r.end_rc = deflateEnd(&s);
  return r;
}

// RocksDB's Zlib_Uncompress: inflate with Z_SYNC_FLUSH (which allocates the
// window), output in `chunk`-byte steps.
std::string InflateAll(const std::string& in, int window_bits, size_t chunk, int* rc_out) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  EXPECT_EQ(inflateInit2(&s, window_bits), Z_OK);
  std::string out;
  s.next_in = B(in);
  s.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    const size_t old = out.size();
    out.resize(old + chunk);
    s.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    s.avail_out = static_cast<uInt>(chunk);
    rc = inflate(&s, Z_SYNC_FLUSH);
    out.resize(out.size() - s.avail_out);
    if (rc == Z_BUF_ERROR && s.avail_in == 0) break;
  }
  *rc_out = rc;
  EXPECT_EQ(inflateEnd(&s), Z_OK);
  return out;
}

class InterposeTest : public testing::Test {
 protected:
  void SetUp() override {
    Configure(On());
    TrimIdle();
  }
  void TearDown() override {
    Configure(Off());
    const OutstandingLeases o = Outstanding();
    EXPECT_EQ(o.zstd_compress, 0);
    EXPECT_EQ(o.deflate, 0);
    EXPECT_EQ(o.inflate, 0);
    EXPECT_EQ(Stats().Total().idle, 0u);
  }
};

TEST_F(InterposeTest, SymbolsBindToRockpool) {
  const Interposition i = CheckInterposition();
  EXPECT_TRUE(i.zstd) << i.ToString();
  EXPECT_TRUE(i.zlib) << i.ToString();
  EXPECT_TRUE(i.zlib_layout) << i.ToString();
  EXPECT_TRUE(i.zstd_layout) << i.ToString();
}

TEST_F(InterposeTest, EverythingForwardsWhenOff) {
  Configure(Off());
  const CompressionPoolsStats before = Stats();
  const std::string in = TestData(4096, 1);
  for (int i = 0; i < 3; ++i) DeflateOnce(in, {6, -14, 8, Z_DEFAULT_STRATEGY});
  ZSTD_freeCCtx(ZSTD_createCCtx());
  ZSTD_freeDCtx(ZSTD_createDCtx());
  int rc;
  InflateAll(DeflateOnce(in, {6, -14, 8, 0}).bytes, -14, 1024, &rc);
  const PoolStats after = Stats().Total();
  EXPECT_EQ(after.created, before.Total().created);
  EXPECT_EQ(after.reused, before.Total().reused);

  RockpoolOptions zero_idle;
  zero_idle.max_idle_per_key = 0;  // also "off"
  Configure(zero_idle);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
  DeflateOnce(in, {6, -14, 8, 0});
  EXPECT_EQ(Stats().Total().created, before.Total().created);
}

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
  const std::string in = TestData(16384, 2);
  std::vector<DeflateResult> reference;
  Configure(Off());
  for (const auto& p : params) reference.push_back(DeflateOnce(in, p));
  Configure(On());
  const PoolStats before = Stats().deflate;
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < params.size(); ++i) {
      SCOPED_TRACE(testing::Message() << "params #" << i << " round " << round);
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
  const std::string noise = Noise(65536, 3);
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
    const std::string in = TestData(5000, 4);
    Configure(Off());
    const DeflateResult want = DeflateOnce(in, {6, wb, 8, Z_DEFAULT_STRATEGY});
    Configure(On());
    EXPECT_TRUE(Same(DeflateOnce(in, {6, wb, 8, Z_DEFAULT_STRATEGY}).bytes, want.bytes));
  }
}

TEST_F(InterposeTest, ReinitialisingTheSameStreamWorks) {
  const std::string in = TestData(3000, 5);
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
  const std::string in = TestData(20000, 6);
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
  const std::string in = TestData(3000, 7);
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
  const std::string in = TestData(30000, 8);
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
  const std::string in = TestData(50000, 9);
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
  const std::string in = TestData(20000, 10);
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
  const std::string in = TestData(8000, 11);
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
  const std::string in = TestData(30000, 22);
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
  const std::string in = TestData(40000, 12);
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
  const std::string in = TestData(100000, 13);
  std::string packed(compressBound(in.size()), '\0');
  uLongf packed_len = packed.size();
  ASSERT_EQ(compress2(B(packed), &packed_len, B(in), in.size(), 7), Z_OK);
  packed.resize(packed_len);
  std::string back(in.size(), '\0');
  uLongf back_len = back.size();
  ASSERT_EQ(uncompress(B(back), &back_len, B(packed), packed.size()), Z_OK);
  EXPECT_TRUE(Same(back, in));

  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/interpose_test.gz";
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

TEST_F(InterposeTest, OtherPoolsInTheProcessAreUntouched) {
  auto own_pools =
      std::make_unique<CompressionPools>();  // 64-byte aligned: not on ASan's fake stack
  CompressionPools& own = *own_pools;
  BlockCodecs codecs(&own);
  const std::string in = TestData(10000, 14);
  const CompressionPoolsStats before = Stats();
  for (int i = 0; i < 3; ++i) {
    std::string block, back;
    ASSERT_TRUE(codecs.zlib().Compress(in, {}, &block).ok());
    ASSERT_TRUE(codecs.zlib().Decompress(block, {}, &back).ok());
    EXPECT_TRUE(Same(back, in));
    ASSERT_TRUE(codecs.zstd().Compress(in, 3, nullptr, &block).ok());
    ASSERT_TRUE(codecs.zstd().Decompress(block, nullptr, &back).ok());
    EXPECT_TRUE(Same(back, in));
  }
  EXPECT_EQ(own.stats().deflate.reused, 2u);
  EXPECT_EQ(Stats().Total().created, before.Total().created);
  EXPECT_EQ(Stats().Total().reused, before.Total().reused);
}

// ---------------------------------------------------------------- zstd

std::string ZstdRocksDBStyle(ZSTD_CCtx* cctx, const std::string& in, int level) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress_usingDict(cctx, out.data(), out.size(), in.data(), in.size(),
                                           nullptr, 0, level);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

TEST_F(InterposeTest, ZstdContextsAreIdenticalResetAndReused) {
  const std::string in = TestData(70000, 15);
  Configure(Off());
  std::vector<std::string> want;
  ZSTD_CCtx* real = ZSTD_createCCtx();
  for (int level : {1, 3, 9, 19}) want.push_back(ZstdRocksDBStyle(real, in, level));
  int default_level = -1;
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_getParameter(real, ZSTD_c_compressionLevel, &default_level)));
  std::string want2(ZSTD_compressBound(in.size()), '\0');
  want2.resize(ZSTD_compress2(real, want2.data(), want2.size(), in.data(), in.size()));
  ZSTD_freeCCtx(real);

  Configure(On());
  const PoolStats before = Stats().zstd_compress;
  ZSTD_CCtx* first = ZSTD_createCCtx();
  ASSERT_NE(first, nullptr);
  ZSTD_CCtx_setParameter(first, ZSTD_c_compressionLevel, 19);
  ZSTD_CCtx_setParameter(first, ZSTD_c_checksumFlag, 1);
  EXPECT_EQ(ZSTD_freeCCtx(first), 0u);
  for (int round = 0; round < 3; ++round) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ASSERT_NE(cctx, nullptr);
    int level = -1, checksum = -1, workers = -1;
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_compressionLevel, &level);
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_checksumFlag, &checksum);
    ZSTD_CCtx_getParameter(cctx, ZSTD_c_nbWorkers, &workers);
    EXPECT_EQ(level, default_level);
    EXPECT_EQ(checksum, 0);
    EXPECT_EQ(workers, 0);
    std::string out(ZSTD_compressBound(in.size()), '\0');
    out.resize(ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size()));
    EXPECT_TRUE(Same(out, want2));
    size_t i = 0;
    for (int l : {1, 3, 9, 19}) EXPECT_EQ(ZstdRocksDBStyle(cctx, in, l), want[i++]) << l;
    EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  }
  const PoolStats after = Stats().zstd_compress;
  EXPECT_EQ(after.created - before.created, 1u);
  EXPECT_EQ(after.reused - before.reused, 3u);
  EXPECT_EQ(ZSTD_freeCCtx(nullptr), 0u);
}

TEST_F(InterposeTest, ZstdWorkersAreNeverPooled) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  const uint64_t discarded = DiscardedContexts();
  const size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 2);
  const std::string in = TestData(1 << 20, 16);
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ASSERT_FALSE(ZSTD_isError(n));
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  if (!ZSTD_isError(r)) {  // libzstd built with multithreading (Debian's is)
    EXPECT_EQ(DiscardedContexts(), discarded + 1);
  }
  ZSTD_CCtx* next = ZSTD_createCCtx();
  int workers = -1;
  ZSTD_CCtx_getParameter(next, ZSTD_c_nbWorkers, &workers);
  EXPECT_EQ(workers, 0);
  ZSTD_freeCCtx(next);
}

TEST_F(InterposeTest, AnotherPoolsContextIsNeverTakenForOurs) {
  // Found without a table, through the customMem inside the context: a
  // context of another pool (same allocator callbacks) must not be claimed.
  ZstdCompressPool other;
  absl::StatusOr<ZstdCompressPool::Lease> lease = other.Acquire(ZstdKey{});
  ASSERT_TRUE(lease.ok());
  ZstdCompressContext* context = other.Park(*std::move(lease));
  const size_t r = ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 0);
  EXPECT_FALSE(ZSTD_isError(r));
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 2)) &&
               context->discard_when_unparked())
      << "the runtime marked another pool's context";
  ZSTD_CCtx_setParameter(context->get(), ZSTD_c_nbWorkers, 0);
  const OutstandingLeases before = Outstanding();
  ZstdCompressPool::Lease back = other.Unpark(context);
  ASSERT_NE(back, nullptr);
  back.reset();
  EXPECT_EQ(other.stats().reused + other.stats().created, 1u);
  EXPECT_EQ(other.stats().idle, 1u);
  EXPECT_EQ(Outstanding().zstd_compress, before.zstd_compress);
}

TEST_F(InterposeTest, ZstdDecompressionContexts) {
  const std::string in = TestData(30000, 17);
  std::string frame(ZSTD_compressBound(in.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), in.data(), in.size(), 3));
  const PoolStats before = Stats().zstd_decompress;
  for (int i = 0; i < 3; ++i) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    ASSERT_NE(dctx, nullptr);
    std::string out(in.size(), '\0');
    EXPECT_EQ(ZSTD_decompress_usingDict(dctx, out.data(), out.size(), frame.data(), frame.size(),
                                        nullptr, 0),
              in.size());
    EXPECT_TRUE(Same(out, in));
    EXPECT_EQ(ZSTD_freeDCtx(dctx), 0u);
  }
  const PoolStats after = Stats().zstd_decompress;
  EXPECT_EQ(after.created - before.created, 1u);
  EXPECT_EQ(after.reused - before.reused, 2u);
  // Contexts rockpool did not create are forwarded.
  ZSTD_CCtx* foreign = ZSTD_createCCtx_advanced(ZSTD_defaultCMem);
  ZSTD_DCtx* foreign_d = ZSTD_createDCtx_advanced(ZSTD_defaultCMem);
  const OutstandingLeases out = Outstanding();
  EXPECT_EQ(ZSTD_freeCCtx(foreign), 0u);
  EXPECT_EQ(ZSTD_freeDCtx(foreign_d), 0u);
  EXPECT_EQ(Outstanding().zstd_compress, out.zstd_compress);
  EXPECT_EQ(Stats().zstd_decompress.reused, after.reused);
}

// ---------------------------------------------------------------- modes

TEST_F(InterposeTest, KillSwitchWhileContextsAreOut) {
  z_stream s;
  std::memset(&s, 0, sizeof(s));
  ASSERT_EQ(deflateInit2(&s, 6, Z_DEFLATED, -14, 8, 0), Z_OK);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  EXPECT_EQ(Outstanding().deflate, 1);
  EXPECT_EQ(Outstanding().zstd_compress, 1);
  Configure(Off());
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
  EXPECT_EQ(deflateEnd(&s), Z_OK);  // still recognised and given back...
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  EXPECT_EQ(Outstanding().deflate, 0);
  EXPECT_EQ(Stats().Total().idle, 0u);  // ...and freed, not kept
}

TEST_F(InterposeTest, MeasureStockCreatesOnePerCall) {
  RockpoolOptions measure;
  measure.measure_stock = true;
  Configure(measure);
  const std::string in = TestData(4000, 18);
  Configure(Off());
  const DeflateResult want = DeflateOnce(in, {6, -14, 8, 0});
  Configure(measure);
  const PoolStats before = Stats().deflate;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Same(DeflateOnce(in, {6, -14, 8, 0}).bytes, want.bytes));
  const PoolStats after = Stats().deflate;
  EXPECT_EQ(after.created - before.created, 5u);
  EXPECT_EQ(after.reused, before.reused);
  EXPECT_EQ(after.idle, 0u);
  // zlib 1.2.13, level 6, windowBits -14, memLevel 8: ~200 KB in 5 calls.
  EXPECT_EQ((after.library.allocations - before.library.allocations) % 5, 0u);
  EXPECT_GT(after.library.bytes_allocated - before.library.bytes_allocated, 5u * 150000);
}

TEST_F(InterposeTest, AllocationFailureFallsBackToTheLibrary) {
  TrimIdle();
  AllocationFaultInjector::FailAll();
  const std::string in = TestData(4000, 19);
  const DeflateResult r = DeflateOnce(in, {5, -13, 7, 0});  // new key: must create
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  AllocationFaultInjector::Disarm();
  EXPECT_EQ(r.end_rc, Z_OK);
  EXPECT_FALSE(r.bytes.empty());
  EXPECT_NE(cctx, nullptr);
  EXPECT_NE(dctx, nullptr);
  EXPECT_EQ(Outstanding().zstd_compress, 0);  // they came from libzstd
  EXPECT_EQ(ZSTD_freeCCtx(cctx), 0u);
  EXPECT_EQ(ZSTD_freeDCtx(dctx), 0u);
  Configure(Off());
  EXPECT_TRUE(Same(DeflateOnce(in, {5, -13, 7, 0}).bytes, r.bytes));
}

TEST_F(InterposeTest, IdleContextsAgeOut) {
  RockpoolOptions quick;
  quick.idle_seconds = 1;
  Configure(quick);
  DeflateOnce(TestData(1000, 20), {6, -14, 8, 0});
  EXPECT_EQ(Stats().deflate.idle, 1u);
  EXPECT_EQ(ReleaseExpired(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(ReleaseExpired(), 1u);
  EXPECT_EQ(Stats().deflate.idle, 0u);
}

TEST_F(InterposeTest, ManyThreads) {
  const std::string in = TestData(20000, 21);
  Configure(Off());
  const std::vector<DeflateParams> params = {{6, -14, 8, 0}, {1, -14, 8, 0}, {9, 31, 8, 0}};
  std::vector<std::string> want;
  for (const auto& p : params) want.push_back(DeflateOnce(in, p).bytes);
  ZSTD_CCtx* real = ZSTD_createCCtx();
  const std::string want_zstd = ZstdRocksDBStyle(real, in, 3);
  ZSTD_freeCCtx(real);
  Configure(On());
  const CompressionPoolsStats before = Stats();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        const size_t k = static_cast<size_t>(t + i) % params.size();
        const DeflateResult r = DeflateOnce(in, params[k]);
        if (r.bytes != want[k] || r.end_rc != Z_OK) ++failures;
        int rc;
        if (InflateAll(r.bytes, params[k].window_bits, 8192, &rc) != in) ++failures;
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        if (ZstdRocksDBStyle(cctx, in, 3) != want_zstd) ++failures;
        ZSTD_freeCCtx(cctx);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  const CompressionPoolsStats s = Stats();
  EXPECT_LE(s.deflate.created - before.deflate.created, 4u * params.size());
  EXPECT_GT(s.deflate.reused - before.deflate.reused, 200u);
  EXPECT_EQ(s.Total().in_use, 0u);
}

// The block-size mix of one SST file (DESIGN.md's probe): 300 blocks of
// 4 KiB, then one 40 KB index block, per "file" on a kept context. Without
// size classes zstd regrows the workspace for the big block and shrinks it
// 128 small blocks later: every file reallocates. With them (the default)
// the handle's calls run on per-class contexts that never resize, and the
// output is a fresh context's.
TEST_F(InterposeTest, ZstdBlockSizeMixDoesNotReallocate) {
  const std::string small = TestData(4096, 31);
  const std::string big = TestData(40000, 32);
  Configure(Off());
  ZSTD_CCtx* fresh = ZSTD_createCCtx();
  const std::string want_small = ZstdRocksDBStyle(fresh, small, 3);
  const std::string want_big = ZstdRocksDBStyle(fresh, big, 3);
  ZSTD_freeCCtx(fresh);
  auto file_bytes = [&](bool size_classes) {
    SetZstdSizeClasses(size_classes);
    std::vector<uint64_t> per_file;
    for (int file = 0; file < 4; ++file) {
      const uint64_t before = Stats().zstd_compress.library.bytes_allocated;
      ZSTD_CCtx* cctx = ZSTD_createCCtx();  // a table builder's context
      for (int block = 0; block < 300; ++block) {
        EXPECT_EQ(ZstdRocksDBStyle(cctx, small, 3), want_small);
      }
      EXPECT_EQ(ZstdRocksDBStyle(cctx, big, 3), want_big);
      ZSTD_freeCCtx(cctx);
      per_file.push_back(Stats().zstd_compress.library.bytes_allocated - before);
    }
    SetZstdSizeClasses(true);
    return per_file;
  };
  Configure(On());
  const std::vector<uint64_t> unrouted = file_bytes(false);
  TrimIdle();
  const std::vector<uint64_t> routed = file_bytes(true);
  Configure(Off());
  for (int file = 0; file < 4; ++file) {
    std::printf("file %d: zstd bytes without size classes %llu, with %llu\n", file,
                static_cast<unsigned long long>(unrouted[file]),
                static_cast<unsigned long long>(routed[file]));
  }
  // Without: every file after the first still reallocates.
  EXPECT_GT(unrouted[2], 0u);
  EXPECT_GT(unrouted[3], 0u);
  // With: only the first file creates contexts (handle + 2 classes).
  EXPECT_GT(routed[0], 0u);
  EXPECT_EQ(routed[1], 0u);
  EXPECT_EQ(routed[2], 0u);
  EXPECT_EQ(routed[3], 0u);
}

}  // namespace
}  // namespace rockpool::legacy
