// Micro benchmarks: fresh context per operation (what stock RocksDB does)
// vs a pooled lease per operation vs one long-lived context (the limit).
//
//   <Codec>_Allocs/{Fresh,Pooled}/L<level>/<size>     single thread
//   <Codec>_Parallel/{Fresh,Pooled}/L<level>/<size>   1..8 threads (2 cores)
//   Encoder/<Codec>/L<level>/<size>                   one reused context
//   <Codec>_DecodeAllocs/{Fresh,Pooled}/<size>, Decoder/<Codec>/<size>
//   Pool/LeaseReturn, Pool/ThreadLocal                pool overhead alone
//
//   Lz4_Allocs/Stock/..., Lz4HC_Allocs/Stock/...      liblz4's own create/free
//
// Counters: alloc_B/op and allocs/op (codec-library bytes and calls, from
// the counting allocator), ratio and compressed_B; bytes_per_second is
// uncompressed MB/s. Codecs: zstd (levels 1, 3, 9), deflate (RocksDB's raw
// format, level 6, window_bits -14), gzip (level 6), LZ4 (acceleration 1)
// and LZ4HC (RocksDB's default level 9). LZ4's Fresh rows create the stream
// through the pool's policy (allocation + LZ4_initStream[HC]); the Stock rows
// make RocksDB 7.x's exact calls (LZ4_createStream / LZ4_createStreamHC +
// LZ4_resetStreamHC, then free), whose one malloc the counting allocator
// cannot see: their alloc_B/op is LZ4_sizeofState[HC](), by construction.
#include <benchmark/benchmark.h>

#include <lz4.h>
#include <lz4hc.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

constexpr size_t kSizes[] = {4 << 10, 16 << 10, 256 << 10};

std::string SizeName(size_t size) { return absl::StrCat(size >> 10, "K"); }

// One codec operation on a context of Policy's kind.
template <typename Policy>
struct Operation {
  typename Policy::Key key;
  // Runs the operation on a fresh or reset context.
  std::function<absl::Status(typename Policy::Context&, std::string_view, std::string*)> run;
  // Whether a long-lived context must be reset between operations.
  bool reset_between_ops;
};

// Reported by thread 0 only. `shared` stats saw every thread's operations;
// otherwise they saw this thread's alone.
void SetCounters(benchmark::State& state, const AllocationCounts& before,
                 const AllocationCounts& after, size_t input_size, size_t output_size,
                 bool compressing, bool shared) {
  if (state.thread_index() != 0) return;
  const double ops = static_cast<double>(state.iterations()) * (shared ? state.threads() : 1);
  state.counters["alloc_B/op"] =
      static_cast<double>(after.bytes_allocated - before.bytes_allocated) / ops;
  state.counters["allocs/op"] = static_cast<double>(after.allocations - before.allocations) / ops;
  const double compressed = static_cast<double>(compressing ? output_size : input_size);
  const double plain = static_cast<double>(compressing ? input_size : output_size);
  state.counters["compressed_B"] = compressed;
  state.counters["ratio"] = plain / compressed;
}

template <typename Policy>
void RunFresh(benchmark::State& state, const Operation<Policy>& op, const std::string& input,
              size_t plain_size, bool compressing) {
  Policy policy;
  AllocationStats stats;
  std::string out;
  const AllocationCounts before = stats.Read();
  for (auto _ : state) {
    auto context = policy.Create(op.key, &stats);
    if (!context.ok() || !op.run(**context, input, &out).ok()) {
      state.SkipWithError("operation failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, before, stats.Read(), input.size(), out.size(), compressing, false);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * plain_size));
}

template <typename Policy>
void RunPooled(benchmark::State& state, ContextPool<Policy>* pool, const Operation<Policy>& op,
               const std::string& input, size_t plain_size, bool compressing) {
  std::string out;
  if (state.thread_index() == 0) {  // warm the pool: steady state is measured
    auto lease = pool->Acquire(op.key);
    if (!lease.ok() || !op.run(**lease, input, &out).ok()) state.SkipWithError("warm-up failed");
  }
  const AllocationCounts before = pool->stats().library;
  for (auto _ : state) {
    auto lease = pool->Acquire(op.key);
    if (!lease.ok() || !op.run(**lease, input, &out).ok()) {
      state.SkipWithError("operation failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, before, pool->stats().library, input.size(), out.size(), compressing, true);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * plain_size));
}

template <typename Policy>
void RunLongLived(benchmark::State& state, const Operation<Policy>& op, const std::string& input,
                  size_t plain_size, bool compressing) {
  Policy policy;
  AllocationStats stats;
  auto context = policy.Create(op.key, &stats);
  std::string out;
  if (!context.ok()) {
    state.SkipWithError("create failed");
    return;
  }
  const AllocationCounts before = stats.Read();
  for (auto _ : state) {
    if (!op.run(**context, input, &out).ok()) {
      state.SkipWithError("operation failed");
      break;
    }
    if (op.reset_between_ops && !policy.Reset(**context).ok()) {
      state.SkipWithError("reset failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, before, stats.Read(), input.size(), out.size(), compressing, false);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * plain_size));
}

// Registers the Allocs / Parallel / Encoder (or Decoder) families for one
// operation. `input` is what the operation consumes.
template <typename Policy>
void RegisterFamily(const std::string& codec, const std::string& variant,
                    const Operation<Policy>& op, std::string input, size_t plain_size,
                    bool compressing) {
  const std::string allocs = compressing ? "_Allocs" : "_DecodeAllocs";
  const std::string parallel = compressing ? "_Parallel" : "_DecodeParallel";
  const std::string limit = compressing ? "Encoder/" : "Decoder/";
  auto shared_input = std::make_shared<const std::string>(std::move(input));
  benchmark::RegisterBenchmark(
      (codec + allocs + "/Fresh/" + variant).c_str(),
      [=](benchmark::State& s) { RunFresh(s, op, *shared_input, plain_size, compressing); });
  auto pool = std::make_shared<ContextPool<Policy>>();
  benchmark::RegisterBenchmark(
      (codec + allocs + "/Pooled/" + variant).c_str(), [=](benchmark::State& s) {
        RunPooled(s, pool.get(), op, *shared_input, plain_size, compressing);
      });
  benchmark::RegisterBenchmark(
      (codec + parallel + "/Fresh/" + variant).c_str(),
      [=](benchmark::State& s) { RunFresh(s, op, *shared_input, plain_size, compressing); })
      ->ThreadRange(1, 8)
      ->UseRealTime();
  auto shared_pool = std::make_shared<ContextPool<Policy>>();
  benchmark::RegisterBenchmark((codec + parallel + "/Pooled/" + variant).c_str(),
                               [=](benchmark::State& s) {
                                 RunPooled(s, shared_pool.get(), op, *shared_input, plain_size,
                                           compressing);
                               })
      ->ThreadRange(1, 8)
      ->UseRealTime();
  benchmark::RegisterBenchmark((limit + codec + "/" + variant).c_str(), [=](benchmark::State& s) {
    RunLongLived(s, op, *shared_input, plain_size, compressing);
  });
}

constexpr size_t kMaxOutput = size_t{1} << 20;

// An LZ4 payload (no size prefix: the same for every row) into *out.
template <typename Fn>
absl::Status Lz4Payload(std::string_view in, std::string* out, Fn compress) {
  out->resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
  absl::StatusOr<size_t> n = compress(out->data(), out->size());
  if (!n.ok()) return n.status();
  out->resize(*n);
  return absl::OkStatus();
}

// RocksDB 7.8.3's LZ4_Compress / LZ4HC_Compress calls, stream and all.
void RunLz4Stock(benchmark::State& state, bool hc, int level, const std::string& input) {
  std::string out;
  for (auto _ : state) {
    absl::Status s;
    if (hc) {
      LZ4_streamHC_t* stream = LZ4_createStreamHC();
      LZ4_resetStreamHC(stream, level);
      s = Lz4Payload(input, &out, [&](char* dst, size_t cap) {
        return Lz4BlockCodec::CompressHcInto(stream, level, input, {}, dst, cap);
      });
      LZ4_freeStreamHC(stream);
    } else {
      LZ4_stream_t* stream = LZ4_createStream();
      s = Lz4Payload(input, &out, [&](char* dst, size_t cap) {
        return Lz4BlockCodec::CompressInto(stream, input, {}, dst, cap);
      });
      LZ4_freeStream(stream);
    }
    if (!s.ok()) {
      state.SkipWithError("operation failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["alloc_B/op"] = hc ? LZ4_sizeofStateHC() : LZ4_sizeofState();
  state.counters["allocs/op"] = 1;
  state.counters["compressed_B"] = static_cast<double>(out.size());
  state.counters["ratio"] = static_cast<double>(input.size()) / static_cast<double>(out.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
}

// LZ4 and LZ4HC at RocksDB's settings: Fresh / Pooled / Parallel / Encoder
// through the pools' policies, and Stock through liblz4's own create/free.
void RegisterLz4Benchmarks(const std::string& input, size_t size) {
  Operation<Lz4StreamPolicy> lz4_op{Lz4Key{},
                                    [](Lz4StreamContext& c, std::string_view in, std::string* out) {
                                      return Lz4Payload(in, out, [&](char* dst, size_t cap) {
                                        return Lz4BlockCodec::CompressInto(c.get(), in, {}, dst,
                                                                           cap);
                                      });
                                    },
                                    true};
  const int level = Lz4BlockCodec::HcLevel(kRocksDbDefaultLevel);
  Operation<Lz4HcStreamPolicy> hc_op{
      Lz4Key{},
      [level](Lz4HcStreamContext& c, std::string_view in, std::string* out) {
        return Lz4Payload(in, out, [&](char* dst, size_t cap) {
          return Lz4BlockCodec::CompressHcInto(c.get(), level, in, {}, dst, cap);
        });
      },
      true};
  RegisterFamily("Lz4", absl::StrCat("A1/", SizeName(size)), lz4_op, input, size, true);
  RegisterFamily("Lz4HC", absl::StrCat("L9/", SizeName(size)), hc_op, input, size, true);
  auto shared = std::make_shared<const std::string>(input);
  benchmark::RegisterBenchmark(
      ("Lz4_Allocs/Stock/A1/" + SizeName(size)).c_str(),
      [shared](benchmark::State& s) { RunLz4Stock(s, false, 1, *shared); });
  benchmark::RegisterBenchmark(
      ("Lz4HC_Allocs/Stock/L9/" + SizeName(size)).c_str(),
      [shared, level](benchmark::State& s) { RunLz4Stock(s, true, level, *shared); });
}

void RegisterCodecBenchmarks() {
  for (size_t size : kSizes) {
    const std::string input = testing::SemiCompressible(size, 1);
    // zstd, RocksDB block format.
    for (int level : {1, 3, 9}) {
      Operation<ZstdCompressPolicy> op{
          ZstdKey{},
          [level](ZstdCompressContext& c, std::string_view in, std::string* out) {
            return ZstdBlockCodec::CompressWith(c.get(), in, level, nullptr, out);
          },
          false};
      RegisterFamily("Zstd", absl::StrCat("L", level, "/", SizeName(size)), op, input, size, true);
    }
    // Deflate, RocksDB block format (raw, window_bits -14), and gzip framing.
    const DeflateKey raw{6, -14, 8, Z_DEFAULT_STRATEGY};
    const DeflateKey gzip{6, 31, 8, Z_DEFAULT_STRATEGY};
    Operation<DeflatePolicy> deflate_op{
        raw,
        [](DeflateContext& c, std::string_view in, std::string* out) {
          return ZlibBlockCodec::CompressWith(c.get(), in, {}, out);
        },
        true};
    Operation<DeflatePolicy> gzip_op{gzip,
                                     [](DeflateContext& c, std::string_view in, std::string* out) {
                                       return ZlibBlockCodec::CompressStreamWith(c.get(), in, out);
                                     },
                                     true};
    RegisterFamily("Deflate", absl::StrCat("L6/", SizeName(size)), deflate_op, input, size, true);
    RegisterFamily("Gzip", absl::StrCat("L6/", SizeName(size)), gzip_op, input, size, true);
    RegisterLz4Benchmarks(input, size);

    // Decoders: the same inputs, compressed once.
    CompressionPools pools;
    BlockCodecs codecs(&pools);
    std::string zstd_block, deflate_block, gzip_stream;
    (void)codecs.zstd().Compress(input, 3, nullptr, &zstd_block);
    (void)codecs.zlib().Compress(input, ZlibBlockOptions{}, &deflate_block);
    (void)codecs.zlib().CompressStream(input, 6, 31, &gzip_stream);
    Operation<ZstdDecompressPolicy> zstd_dec{
        ZstdKey{},
        [](ZstdDecompressContext& c, std::string_view in, std::string* out) {
          return ZstdBlockCodec::DecompressWith(c.get(), in, nullptr, kMaxOutput, out);
        },
        false};
    Operation<InflatePolicy> inflate_dec{
        InflateKey{-15},
        [](InflateContext& c, std::string_view in, std::string* out) {
          return ZlibBlockCodec::DecompressWith(c.get(), in, {}, kMaxOutput, out);
        },
        true};
    Operation<InflatePolicy> gunzip_dec{
        InflateKey{31},
        [](InflateContext& c, std::string_view in, std::string* out) {
          return ZlibBlockCodec::DecompressStreamWith(c.get(), in, kMaxOutput, out);
        },
        true};
    RegisterFamily("Zstd", SizeName(size), zstd_dec, zstd_block, size, false);
    RegisterFamily("Deflate", SizeName(size), inflate_dec, deflate_block, size, false);
    RegisterFamily("Gzip", SizeName(size), gunzip_dec, gzip_stream, size, false);
  }
}

// Pool overhead alone: a context that costs nothing to create or reset.
struct NullContext {
  int payload = 0;
};
struct NullPolicy {
  using Context = NullContext;
  using Key = int;
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key&, AllocationStats*) {
    return std::make_unique<Context>();
  }
  absl::Status Reset(Context& c) {
    c.payload = 0;
    return absl::OkStatus();
  }
  size_t BytesHeld(const Context&) { return 0; }
};

void BM_PoolLeaseReturn(benchmark::State& state) {
  static ContextPool<NullPolicy> pool(PoolOptions{.max_retained_per_key = 16});
  for (auto _ : state) {
    auto lease = pool.Acquire(0);
    benchmark::DoNotOptimize((*lease)->payload += 1);
  }
}
BENCHMARK(BM_PoolLeaseReturn)->Name("Pool/LeaseReturn")->ThreadRange(1, 8)->UseRealTime();

void BM_ThreadLocalContext(benchmark::State& state) {
  thread_local std::unique_ptr<NullContext> context = std::make_unique<NullContext>();
  for (auto _ : state) {
    NullContext* c = context.get();
    benchmark::DoNotOptimize(c->payload += 1);
    c->payload = 0;  // the "reset" a pool would do
  }
}
BENCHMARK(BM_ThreadLocalContext)->Name("Pool/ThreadLocal")->ThreadRange(1, 8)->UseRealTime();

// Lease + return of a real zstd context, including its reset.
void BM_PoolLeaseReturnZstd(benchmark::State& state) {
  static ZstdCompressPool pool;
  for (auto _ : state) {
    auto lease = pool.Acquire(ZstdKey{});
    benchmark::DoNotOptimize((*lease)->get());
  }
}
BENCHMARK(BM_PoolLeaseReturnZstd)->Name("Pool/LeaseReturnZstd")->ThreadRange(1, 8)->UseRealTime();

// Lease + one library-sized allocation and free through the context's
// CountingAllocator: what a codec growing a pooled context pays per
// allocation, 8 threads contending for the pool's shared totals.
struct AllocatingContext {
  explicit AllocatingContext(AllocationStats* stats) : allocator(stats) {}
  CountingAllocator allocator;
};
struct AllocatingPolicy {
  using Context = AllocatingContext;
  using Key = int;
  absl::StatusOr<std::unique_ptr<Context>> Create(const Key&, AllocationStats* stats) {
    return std::make_unique<Context>(stats);
  }
  absl::Status Reset(Context&) { return absl::OkStatus(); }
  size_t BytesHeld(const Context& c) { return static_cast<size_t>(c.allocator.bytes_live()); }
};

void BM_PoolLeaseAllocate(benchmark::State& state) {
  static ContextPool<AllocatingPolicy> pool(PoolOptions{.max_retained_per_key = 16});
  for (auto _ : state) {
    auto lease = pool.Acquire(0);
    void* p = (*lease)->allocator.Allocate(256);
    benchmark::DoNotOptimize(p);
    (*lease)->allocator.Free(p);
  }
}
BENCHMARK(BM_PoolLeaseAllocate)->Name("Pool/LeaseAllocate")->ThreadRange(1, 8)->UseRealTime();

}  // namespace
}  // namespace rockpool

int main(int argc, char** argv) {
  rockpool::RegisterCodecBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
