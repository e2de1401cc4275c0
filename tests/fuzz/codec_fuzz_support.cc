#include "tests/fuzz/codec_fuzz_support.h"

#include "absl/time/time.h"

namespace rockpool::fuzz {

std::string SeedDictionary() {
  // Record-like text, as a RocksDB dictionary sampled from data blocks.
  std::string d;
  for (int i = 0; d.size() < 2048; ++i) {
    d += "{\"id\":" + std::to_string(1000 + i * 7) +
         ",\"status\":\"active\",\"country\":\"DE\",\"tags\":\"premium\"}\n";
  }
  return d;
}

namespace {
PoolOptions FuzzPoolOptions() {
  PoolOptions o;
  o.max_retained_per_key = 2;
  o.idle_timeout = absl::InfiniteDuration();
  return o;
}
}  // namespace

CodecFuzzState::CodecFuzzState() : pools(FuzzPoolOptions()), codecs(&pools, kMaxUncompressedSize) {
  absl::StatusOr<std::shared_ptr<const ZstdDictionary>> d =
      ZstdDictionary::Create(SeedDictionary(), 3);
  FUZZ_CHECK(d.ok());
  dictionary = *std::move(d);
  for (int i = 0; probe.size() < 3000; ++i) {
    probe += "key" + std::to_string(i) + "=value-" + std::to_string(i * i) + ";";
  }
  ZlibBlockOptions with_dict;
  with_dict.dictionary = dictionary->raw();
  FUZZ_CHECK(codecs.zstd().Compress(probe, 3, nullptr, &probe_zstd).ok());
  FUZZ_CHECK(codecs.zstd().Compress(probe, 3, dictionary.get(), &probe_zstd_dict).ok());
  FUZZ_CHECK(codecs.zlib().Compress(probe, ZlibBlockOptions{}, &probe_zlib).ok());
  FUZZ_CHECK(codecs.zlib().Compress(probe, with_dict, &probe_zlib_dict).ok());
  FUZZ_CHECK(codecs.zlib().CompressStream(probe, 6, 31, &probe_gzip).ok());
  FUZZ_CHECK(codecs.lz4().Compress(probe, Lz4BlockOptions{}, &probe_lz4).ok());
  FUZZ_CHECK(codecs.lz4()
                 .Compress(probe, Lz4BlockOptions{false, 0, dictionary->raw()}, &probe_lz4_dict)
                 .ok());
  FUZZ_CHECK(codecs.lz4()
                 .Compress(probe, Lz4BlockOptions{true, 9, dictionary->raw()}, &probe_lz4hc_dict)
                 .ok());
}

CodecFuzzState& State() {
  static CodecFuzzState* state = new CodecFuzzState();
  return *state;
}

void CheckPoolInvariants(const CompressionPools& pools) {
  const CompressionPoolsStats all = pools.stats();
  for (const PoolStats* s : {&all.zstd_compress, &all.zstd_decompress, &all.deflate, &all.inflate,
                             &all.lz4, &all.lz4hc}) {
    FUZZ_CHECK(s->in_use == 0);
    FUZZ_CHECK(s->created == s->destroyed + s->idle);
    FUZZ_CHECK(s->library.bytes_live >= 0);
    FUZZ_CHECK(static_cast<uint64_t>(s->library.bytes_live) == s->idle_bytes);
  }
}

void CheckZstdProbes(CodecFuzzState& state) {
  std::string out;
  const BlockCodecs& c = state.codecs;
  FUZZ_CHECK(c.zstd().Decompress(state.probe_zstd, nullptr, &out).ok() && out == state.probe);
  FUZZ_CHECK(c.zstd().Decompress(state.probe_zstd_dict, state.dictionary.get(), &out).ok() &&
             out == state.probe);
}

void CheckZlibProbes(CodecFuzzState& state) {
  std::string out;
  const BlockCodecs& c = state.codecs;
  FUZZ_CHECK(c.zlib().Decompress(state.probe_zlib, {}, &out).ok() && out == state.probe);
  FUZZ_CHECK(c.zlib().Decompress(state.probe_zlib_dict, state.dictionary->raw(), &out).ok() &&
             out == state.probe);
}

void CheckLz4Probes(CodecFuzzState& state) {
  std::string out;
  const BlockCodecs& c = state.codecs;
  const std::string_view dict = state.dictionary->raw();
  FUZZ_CHECK(c.lz4().Decompress(state.probe_lz4, {}, &out).ok() && out == state.probe);
  FUZZ_CHECK(c.lz4().Decompress(state.probe_lz4_dict, dict, &out).ok() && out == state.probe);
  FUZZ_CHECK(c.lz4().Decompress(state.probe_lz4hc_dict, dict, &out).ok() && out == state.probe);
  FUZZ_CHECK(c.lz4().Compress(state.probe, Lz4BlockOptions{}, &out).ok() && out == state.probe_lz4);
  FUZZ_CHECK(c.lz4().Compress(state.probe, Lz4BlockOptions{true, 9, dict}, &out).ok() &&
             out == state.probe_lz4hc_dict);
}

void CheckStreamProbe(CodecFuzzState& state) {
  std::string out;
  FUZZ_CHECK(
      state.codecs.zlib().DecompressStream(state.probe_gzip, 47, state.probe.size(), &out).ok() &&
      out == state.probe);
}

}  // namespace rockpool::fuzz
