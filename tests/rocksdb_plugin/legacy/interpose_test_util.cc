#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

#include <cstring>

#include "rocksdb_plugin/legacy/runtime.h"

namespace rockpool::legacy {

::testing::AssertionResult Same(const std::string& a, const std::string& b) {
  if (a == b) return ::testing::AssertionSuccess();
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return ::testing::AssertionFailure()
         << "sizes " << a.size() << " vs " << b.size() << ", first difference at byte " << i;
}

RockpoolOptions On() { return RockpoolOptions{}; }
RockpoolOptions Off() {
  RockpoolOptions o;
  o.enabled = false;
  return o;
}

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

std::string ZstdRocksDBStyle(ZSTD_CCtx* cctx, const std::string& in, int level) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress_usingDict(cctx, out.data(), out.size(), in.data(), in.size(),
                                           nullptr, 0, level);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

void InterposeTest::SetUp() {
  Configure(On());
  TrimIdle();
}

void InterposeTest::TearDown() {
  Configure(Off());
  const OutstandingLeases o = Outstanding();
  EXPECT_EQ(o.zstd_compress, 0);
  EXPECT_EQ(o.deflate, 0);
  EXPECT_EQ(o.inflate, 0);
  EXPECT_EQ(o.lz4, 0);
  EXPECT_EQ(o.lz4hc, 0);
  EXPECT_EQ(Stats().Total().idle, 0u);
}

}  // namespace rockpool::legacy
