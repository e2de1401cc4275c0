// A program with no RocksDB and no rockpool: N rounds of the context
// lifecycle stock RocksDB runs per block (deflateInit2_/deflateEnd,
// inflateInit2_/inflateEnd, ZSTD_createCCtx/freeCCtx, createDCtx/freeDCtx),
// each round checked for a correct round trip. interpose_object_test runs it
// under LD_PRELOAD=librockpool_interpose.so.
//
// Usage: codec_loop <rounds>; exit 0 if every round trip was correct.
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool ZlibRound(const std::string& in) {
  z_stream d{};
  if (deflateInit2(&d, 6, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  std::string packed(deflateBound(&d, in.size()), '\0');
  d.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  d.avail_in = static_cast<uInt>(in.size());
  d.next_out = reinterpret_cast<Bytef*>(packed.data());
  d.avail_out = static_cast<uInt>(packed.size());
  const bool deflated = deflate(&d, Z_FINISH) == Z_STREAM_END;
  packed.resize(d.total_out);
  if (deflateEnd(&d) != Z_OK || !deflated) return false;

  z_stream i{};
  if (inflateInit2(&i, -14) != Z_OK) return false;
  std::string out(in.size(), '\0');
  i.next_in = reinterpret_cast<Bytef*>(packed.data());
  i.avail_in = static_cast<uInt>(packed.size());
  i.next_out = reinterpret_cast<Bytef*>(out.data());
  i.avail_out = static_cast<uInt>(out.size());
  const bool inflated = inflate(&i, Z_FINISH) == Z_STREAM_END && i.total_out == in.size();
  return inflateEnd(&i) == Z_OK && inflated && out == in;
}

bool ZstdRound(const std::string& in) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (c == nullptr) return false;
  std::string packed(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compressCCtx(c, packed.data(), packed.size(), in.data(), in.size(), 3);
  ZSTD_freeCCtx(c);
  if (ZSTD_isError(n)) return false;
  ZSTD_DCtx* d = ZSTD_createDCtx();
  if (d == nullptr) return false;
  std::string out(in.size(), '\0');
  const size_t m = ZSTD_decompressDCtx(d, out.data(), out.size(), packed.data(), n);
  ZSTD_freeDCtx(d);
  return !ZSTD_isError(m) && m == in.size() && out == in;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100;
  std::string block;
  for (int k = 0; block.size() < 4096; ++k) block += "key" + std::to_string(k % 97) + ":value;";
  for (int r = 0; r < rounds; ++r) {
    block[r % block.size()] = static_cast<char>('a' + r % 26);
    if (!ZlibRound(block) || !ZstdRound(block)) {
      std::fprintf(stderr, "codec_loop: round %d failed\n", r);
      return 1;
    }
  }
  return 0;
}
