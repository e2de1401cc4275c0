// The legacy face's interposed entry points themselves:
// what one create/free (init/end) pair costs through rockpool, called the
// way RocksDB 7.8.3 calls it, per block or per file:
//
//   BM_ZstdCreateFreeCCtx/pooled:{1,0}   ZSTD_createCCtx + ZSTD_freeCCtx
//   BM_ZstdCreateFreeDCtx/pooled:{1,0}   ZSTD_createDCtx + ZSTD_freeDCtx
//   BM_DeflateInitEnd/pooled:{1,0}       deflateInit2_(-1, Z_DEFLATED, -14, 8, 0) + deflateEnd
//   BM_InflateInitEnd/pooled:{1,0}       inflateInit2_(-14) + inflateEnd
//   BM_DeflateBlock4K/pooled:{1,0}       the same with one deflate(Z_FINISH) of a 4 KiB block
//   BM_InflateBlock4K/pooled:{1,0}       ... one inflate(Z_SYNC_FLUSH) of it
//
// pooled:1 = the default RockpoolOptions (mode pool: a lease and a return
// per pair), pooled:0 = enabled=false (forwarded: rockpool's entry point
// calls the real library). The calls are made by libinterpose_entry_calls.so
// (bench/interpose_entry_calls.cc) through its PLT, bound by the dynamic
// linker to the definitions this executable exports (it links
// //rocksdb_plugin:interpose statically), as librocksdb.so's are. Each
// benchmark fails (SkipWithError) unless rockpool's statistics show the
// pairs were pooled (reused) or forwarded (no lease).
//
// Exact mode, for instruction counts (callgrind collects only the loop):
//   interpose_entry_bench --pairs=N --kind=zstd_cctx|zstd_dctx|deflate|inflate
//                         --mode=pooled|forwarded [--warmup=1000]
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=rockpool_entry_pairs ...
// runs `warmup` pairs, then exactly N pairs in rockpool_entry_pairs(), and
// prints one line `kind=... mode=... pairs=N leases=... reused=...`.
//
// Written so that the same file builds against older rockpool commits (it
// uses only Configure() and Stats() of rocksdb_plugin/legacy/runtime.h):
// bench/compare_entry.sh runs an old and a new binary side by side.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/interpose_entry_calls.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"

namespace rockpool {
namespace {

using PoolField = PoolStats CompressionPoolsStats::*;

struct Kind {
  const char* name;
  int id;
  PoolField pool;
};

constexpr Kind kKinds[] = {
    {"zstd_cctx", ROCKPOOL_ENTRY_ZSTD_CCTX, &CompressionPoolsStats::zstd_compress},
    {"zstd_dctx", ROCKPOOL_ENTRY_ZSTD_DCTX, &CompressionPoolsStats::zstd_decompress},
    {"deflate", ROCKPOOL_ENTRY_DEFLATE, &CompressionPoolsStats::deflate},
    {"inflate", ROCKPOOL_ENTRY_INFLATE, &CompressionPoolsStats::inflate},
};

void SetPooling(bool pooled) {
  RockpoolOptions options;  // the defaults: enabled=true, mode pool
  options.enabled = pooled;
  legacy::Configure(options);
}

uint64_t Leases(const PoolStats& s) { return s.created + s.reused; }

// "" if the calls between `before` and `after` went where they should.
std::string Check(bool pooled, const PoolStats& before, const PoolStats& after, uint64_t pairs) {
  const uint64_t reused = after.reused - before.reused;
  const uint64_t leases = Leases(after) - Leases(before);
  if (pooled && (reused == 0 || reused + 1 < pairs)) {
    return "pooled, but rockpool reused " + std::to_string(reused) + " contexts for " +
           std::to_string(pairs) + " pairs (not interposed?)";
  }
  if (!pooled && leases != 0) return "forwarded, but rockpool leased " + std::to_string(leases);
  return "";
}

void Finish(benchmark::State& state, bool pooled, PoolField pool,
            const CompressionPoolsStats& before) {
  const CompressionPoolsStats after = legacy::Stats();
  const std::string error =
      Check(pooled, before.*pool, after.*pool, static_cast<uint64_t>(state.iterations()));
  if (!error.empty()) state.SkipWithError(error.c_str());
  state.counters["reused/pair"] =
      benchmark::Counter(static_cast<double>((after.*pool).reused - (before.*pool).reused) /
                         static_cast<double>(state.iterations() > 0 ? state.iterations() : 1));
}

template <int (*kPair)()>
void RunPairs(benchmark::State& state, PoolField pool) {
  const bool pooled = state.range(0) != 0;
  SetPooling(pooled);
  if (kPair() != 0) {  // the first lease creates the context
    state.SkipWithError("the call failed");
    return;
  }
  const CompressionPoolsStats before = legacy::Stats();
  for (auto _ : state) {
    if (kPair() != 0) {
      state.SkipWithError("the call failed");
      break;
    }
  }
  Finish(state, pooled, pool, before);
  SetPooling(false);
}

void BM_ZstdCreateFreeCCtx(benchmark::State& state) {
  RunPairs<rockpool_entry_zstd_cctx_pair>(state, &CompressionPoolsStats::zstd_compress);
}
void BM_ZstdCreateFreeDCtx(benchmark::State& state) {
  RunPairs<rockpool_entry_zstd_dctx_pair>(state, &CompressionPoolsStats::zstd_decompress);
}
void BM_DeflateInitEnd(benchmark::State& state) {
  RunPairs<rockpool_entry_deflate_pair>(state, &CompressionPoolsStats::deflate);
}
void BM_InflateInitEnd(benchmark::State& state) {
  RunPairs<rockpool_entry_inflate_pair>(state, &CompressionPoolsStats::inflate);
}

// A 4 KiB block of key/value text, about 3x compressible.
std::string Block() {
  std::string block;
  for (int k = 0; block.size() < 4096; ++k) {
    block += "key" + std::to_string(k * 7919 % 1000) + ":value" + std::to_string(k % 13) + ";";
  }
  block.resize(4096);
  return block;
}

void BM_DeflateBlock4K(benchmark::State& state) {
  const bool pooled = state.range(0) != 0;
  SetPooling(pooled);
  const std::string in = Block();
  std::string out(in.size() * 2 + 64, '\0');
  rockpool_entry_deflate_block(in.data(), in.size(), out.data(), out.size());
  const CompressionPoolsStats before = legacy::Stats();
  long size = 0;
  for (auto _ : state) {
    size = rockpool_entry_deflate_block(in.data(), in.size(), out.data(), out.size());
    if (size < 0) {
      state.SkipWithError("deflate failed");
      break;
    }
  }
  Finish(state, pooled, &CompressionPoolsStats::deflate, before);
  state.counters["compressed_B"] = static_cast<double>(size);
  SetPooling(false);
}

void BM_InflateBlock4K(benchmark::State& state) {
  const bool pooled = state.range(0) != 0;
  const std::string in = Block();
  std::string packed(in.size() * 2 + 64, '\0');
  SetPooling(false);
  const long n = rockpool_entry_deflate_block(in.data(), in.size(), packed.data(), packed.size());
  if (n < 0) {
    state.SkipWithError("deflate failed");
    return;
  }
  packed.resize(static_cast<size_t>(n));
  SetPooling(pooled);
  std::string out(in.size(), '\0');
  rockpool_entry_inflate_block(packed.data(), packed.size(), out.data(), out.size());
  const CompressionPoolsStats before = legacy::Stats();
  for (auto _ : state) {
    if (rockpool_entry_inflate_block(packed.data(), packed.size(), out.data(), out.size()) !=
        static_cast<long>(in.size())) {
      state.SkipWithError("inflate failed");
      break;
    }
  }
  if (out != in) state.SkipWithError("inflate produced other bytes");
  Finish(state, pooled, &CompressionPoolsStats::inflate, before);
  SetPooling(false);
}

BENCHMARK(BM_ZstdCreateFreeCCtx)->ArgName("pooled")->Arg(1)->Arg(0);
BENCHMARK(BM_ZstdCreateFreeDCtx)->ArgName("pooled")->Arg(1)->Arg(0);
BENCHMARK(BM_DeflateInitEnd)->ArgName("pooled")->Arg(1)->Arg(0);
BENCHMARK(BM_InflateInitEnd)->ArgName("pooled")->Arg(1)->Arg(0);
BENCHMARK(BM_DeflateBlock4K)->ArgName("pooled")->Arg(1)->Arg(0);
BENCHMARK(BM_InflateBlock4K)->ArgName("pooled")->Arg(1)->Arg(0);

// The exact mode (see the top). Returns the exit code.
int RunExact(int argc, char** argv) {
  long pairs = 0;
  long warmup = 1000;
  const char* kind_name = "";
  const char* mode = "pooled";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--pairs=", 8) == 0) {
      pairs = std::atol(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--warmup=", 9) == 0) {
      warmup = std::atol(argv[i] + 9);
    } else if (std::strncmp(argv[i], "--kind=", 7) == 0) {
      kind_name = argv[i] + 7;
    } else if (std::strncmp(argv[i], "--mode=", 7) == 0) {
      mode = argv[i] + 7;
    } else {
      std::fprintf(stderr, "interpose_entry_bench: unknown argument %s in exact mode\n", argv[i]);
      return 2;
    }
  }
  const Kind* kind = nullptr;
  for (const Kind& k : kKinds) {
    if (std::strcmp(k.name, kind_name) == 0) kind = &k;
  }
  const bool pooled = std::strcmp(mode, "pooled") == 0;
  if (kind == nullptr || pairs <= 0 || (!pooled && std::strcmp(mode, "forwarded") != 0)) {
    std::fprintf(stderr,
                 "usage: interpose_entry_bench --pairs=N --kind=zstd_cctx|zstd_dctx|deflate|"
                 "inflate --mode=pooled|forwarded [--warmup=W]\n");
    return 2;
  }
  SetPooling(pooled);
  if (rockpool_entry_warmup(kind->id, warmup) != 0) {
    std::fprintf(stderr, "interpose_entry_bench: the call failed\n");
    return 1;
  }
  const CompressionPoolsStats before = legacy::Stats();
  if (rockpool_entry_pairs(kind->id, pairs) != 0) {
    std::fprintf(stderr, "interpose_entry_bench: the call failed\n");
    return 1;
  }
  const CompressionPoolsStats after = legacy::Stats();
  const PoolStats& b = before.*(kind->pool);
  const PoolStats& a = after.*(kind->pool);
  std::printf("kind=%s mode=%s pairs=%ld leases=%llu reused=%llu\n", kind->name, mode, pairs,
              static_cast<unsigned long long>(Leases(a) - Leases(b)),
              static_cast<unsigned long long>(a.reused - b.reused));
  const std::string error = Check(pooled, b, a, static_cast<uint64_t>(pairs));
  if (!error.empty()) {
    std::fprintf(stderr, "interpose_entry_bench: %s\n", error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--pairs=", 8) == 0) return rockpool::RunExact(argc, argv);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
