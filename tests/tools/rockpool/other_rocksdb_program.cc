// A program on another RocksDB (other_rocksdb_stub.cc, librocksdb.so.9)
// that also compresses with zstd and zlib: what the preload object must
// leave alone when it is loaded into it anyway (rocksdb_plugin/legacy/
// refusal.h). Prints "ok" and exits 0 when every call behaved as without
// rockpool; exits 3 when its RocksDB's SanitizeOptions result was touched,
// 4 when a codec call failed.
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <string>

namespace rocksdb {
struct DBOptions {
  std::string marker;
};
class Status;
DBOptions SanitizeOptions(const std::string& dbname, const DBOptions& src, bool read_only,
                          Status* logger_creation_s);
}  // namespace rocksdb

int main() {
  const rocksdb::DBOptions in{"!"};
  const rocksdb::DBOptions out = rocksdb::SanitizeOptions("db", in, false, nullptr);
  if (out.marker != "sanitized by the stub: db!") {
    std::printf("SanitizeOptions returned \"%s\"\n", out.marker.c_str());
    return 3;
  }
  const std::string text(4096, 'r');
  char compressed[8192];
  for (int i = 0; i < 20; ++i) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    if (cctx == nullptr) return 4;
    const size_t n =
        ZSTD_compressCCtx(cctx, compressed, sizeof(compressed), text.data(), text.size(), 3);
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n)) return 4;
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 4;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(compressed);
    z.avail_out = sizeof(compressed);
    const int rc = deflate(&z, Z_FINISH);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return 4;
  }
  std::printf("ok\n");
  return 0;
}
